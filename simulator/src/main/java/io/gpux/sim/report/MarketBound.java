package io.gpux.sim.report;

/**
 * The surplus bound of one market: the smaller of two valid upper bounds on the same demand and fleet,
 * {@link SurplusBound}'s linear program (solved exactly by ojAlgo's simplex, over at most
 * {@link SurplusBound#MAX_SLOTS} slots with pooled jobs) and {@link DualBound}'s Lagrangian dual over hour slots
 * (every job and machine on its own). Each is at least the surplus of any allocation that keeps every job
 * to its window, so the smaller one is too.
 */
public final class MarketBound
{
    private final SurplusBound program;
    private final DualBound dual;
    private double programValue = Double.NaN;
    private double dualValue = Double.NaN;

    /** The bounds over [openMs, closeMs): {@link SurplusBound#forWindow} and a {@link DualBound} with its default steps. */
    public MarketBound(final long openMs, final long closeMs)
    {
        this.program = SurplusBound.forWindow(openMs, closeMs);
        this.dual = new DualBound(openMs, closeMs);
    }

    /** See {@link SurplusBound#job(long, long, double, int, boolean, double)}. */
    public void job(final long fromMs, final long untilMs, final double workGpuHours, final int gpus, final boolean gang,
        final double value)
    {
        program.job(fromMs, untilMs, workGpuHours, gpus, gang, value);
        dual.job(fromMs, untilMs, workGpuHours, gpus, gang, value);
    }

    /** See {@link SurplusBound#online}. */
    public void online(final long fromMs, final long toMs, final int gpus, final double cost)
    {
        program.online(fromMs, toMs, gpus, cost);
        dual.online(fromMs, toMs, gpus, cost);
    }

    /** Solves both; the smaller. */
    public double solve()
    {
        programValue = program.solve();
        dualValue = dual.solve();
        return Math.min(programValue, dualValue);
    }

    /** The linear program's optimum (after {@link #solve()}). */
    public double programValue()
    {
        return programValue;
    }

    /** The dual bound (after {@link #solve()}). */
    public double dualValue()
    {
        return dualValue;
    }
}
