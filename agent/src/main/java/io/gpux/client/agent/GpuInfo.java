package io.gpux.client.agent;

/**
 * One GPU as discovered on the owner's machine: what it is and what it can do, the facts an ask is
 * built from. Numeric fields the tool reports as unavailable hold {@link NvidiaSmiCsv#NULL_VALUE},
 * text fields hold null.
 *
 * @param index             the GPU's position in the tool's output, from 0 (nvidia-smi lists GPUs
 *                          in its own index order).
 * @param name              the product name, e.g. {@code NVIDIA H200}.
 * @param uuid              the stable identity of the GPU, e.g. {@code GPU-5f1d0c2e-...}.
 * @param serial            the board serial number, or null (consumer boards have none).
 * @param pciBusId          the PCI bus id, e.g. {@code 00000000:00:06.0}, or null.
 * @param driverVersion     the driver version, e.g. {@code 580.159.04}, or null.
 * @param memoryTotalMiB    the memory the driver reports, in MiB (always reported).
 * @param computeCapability the CUDA compute capability, e.g. {@code 9.0}, or null.
 * @param powerLimitMilliW  the power limit in milliwatts, e.g. 700000 for 700 W.
 * @param maxSmClockMHz     the maximum SM clock in MHz.
 */
public record GpuInfo(
    int index,
    String name,
    String uuid,
    String serial,
    String pciBusId,
    String driverVersion,
    long memoryTotalMiB,
    String computeCapability,
    long powerLimitMilliW,
    int maxSmClockMHz)
{
    private static final long MIB_PER_GIB = 1024;

    /**
     * Checks the identity fields.
     *
     * @throws NullPointerException     if name or uuid is null.
     * @throws IllegalArgumentException if index or memoryTotalMiB is negative.
     */
    public GpuInfo
    {
        if (name == null || uuid == null)
        {
            throw new NullPointerException("a GPU needs a name and a uuid");
        }
        if (index < 0 || memoryTotalMiB < 0)
        {
            throw new IllegalArgumentException("negative index or memory: " + index + ", " + memoryTotalMiB);
        }
    }

    /**
     * The memory size as a GPU market labels it, in whole GB: {@code ceil(memoryTotalMiB / 1024)}.
     * <p>
     * Rounded up, not to nearest: the driver reports the board's memory minus what firmware and
     * the driver reserve, so the reported size is always a little under the labelled one. An H200
     * reports 143771 MiB = 140.4 GiB and is sold as 141 GB; an H100 reports 81559 MiB = 79.6 GiB
     * and is sold as 80 GB; an RTX 4090 reports 24564 MiB = 23.99 GiB for 24 GB. Rounding to
     * nearest would call the H200 a 140 GB part.
     *
     * @return the memory in whole GB.
     */
    public long vramGb()
    {
        return (memoryTotalMiB + MIB_PER_GIB - 1) / MIB_PER_GIB;
    }

    /**
     * The exchange market this GPU most likely trades in; see {@link MarketSymbols#suggest}.
     * A suggestion only: the owner confirms the market when registering the machine.
     *
     * @return a market symbol such as {@code H200-141G}.
     */
    public String marketSymbol()
    {
        return MarketSymbols.suggest(name, vramGb());
    }
}
