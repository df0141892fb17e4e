package io.gpux.sim.agent;

/**
 * One market of the catalogue: a GPU class with the reference prices that agents' costs and values
 * are drawn around (currency per GPU-hour).
 *
 * @param symbol        the market symbol.
 * @param model         the GPU model, for humans.
 * @param peerPrice     typical 2025 price on peer-to-peer / community marketplaces: owners' reserve
 *                      prices (costs) are drawn around it.
 * @param onDemandPrice typical 2025 on-demand price on clouds: the reference for the spot discount.
 * @param fleetShare    share of the machines of the simulated fleet.
 * @param consumer      a consumer card: smaller machines (1 to 8 GPUs, mostly 1 to 4).
 * @param afr           annual failure rate per GPU (a failure takes its whole machine offline).
 * @param minIncrement  the market's minimum preemption increment, in price ticks.
 * @param vramGb        memory per GPU (for telemetry).
 * @param powerWatts    board power limit per GPU (for telemetry).
 */
public record GpuClass(
    String symbol, String model, double peerPrice, double onDemandPrice, double fleetShare, boolean consumer,
    double afr, long minIncrement, int vramGb, int powerWatts)
{
}
