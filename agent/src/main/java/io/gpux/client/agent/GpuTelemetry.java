package io.gpux.client.agent;

/**
 * One telemetry sample of one GPU, as the owner agent reports it with its heartbeats. Every number
 * is a whole number or fixed point; a value the tool reports as unavailable (e.g. ECC counters on
 * a board without ECC) holds {@link NvidiaSmiCsv#NULL_VALUE}.
 *
 * @param uuid                 the GPU sampled, as in {@link GpuInfo#uuid()}.
 * @param utilizationGpuPct    percent of the last sample period a kernel was running, 0..100.
 * @param utilizationMemoryPct percent of the last sample period memory was read or written, 0..100.
 * @param memoryUsedMiB        memory allocated on the GPU, in MiB.
 * @param temperatureC         core temperature in degrees Celsius.
 * @param powerDrawMilliW      power draw in milliwatts: 122.55 W is 122550.
 * @param smClockMHz           current SM clock in MHz.
 * @param eccUncorrected       uncorrected ECC errors since the driver loaded (volatile count).
 * @param pstate               performance state number: 0 for P0 (maximum) to 15 (minimum).
 */
public record GpuTelemetry(
    String uuid,
    int utilizationGpuPct,
    int utilizationMemoryPct,
    long memoryUsedMiB,
    int temperatureC,
    long powerDrawMilliW,
    int smClockMHz,
    long eccUncorrected,
    int pstate)
{
    /**
     * Checks the identity field.
     *
     * @throws NullPointerException if uuid is null.
     */
    public GpuTelemetry
    {
        if (uuid == null)
        {
            throw new NullPointerException("a sample needs the GPU's uuid");
        }
    }
}
