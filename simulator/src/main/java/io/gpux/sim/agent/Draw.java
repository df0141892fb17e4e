package io.gpux.sim.agent;

import java.util.SplittableRandom;

/** Random draws the agents use, all from their own {@link SplittableRandom}. */
public final class Draw
{
    private Draw()
    {
    }

    /** A standard normal variate (Box-Muller; one of the pair is dropped to keep draws independent of history). */
    public static double normal(final SplittableRandom rng)
    {
        final double u1 = 1.0 - rng.nextDouble();
        final double u2 = rng.nextDouble();
        return Math.sqrt(-2.0 * Math.log(u1)) * Math.cos(2.0 * Math.PI * u2);
    }

    /** A log-normal variate with the given median and log-space standard deviation. */
    public static double logNormal(final SplittableRandom rng, final double median, final double sigma)
    {
        return median * Math.exp(sigma * normal(rng));
    }

    public static double clamp(final double v, final double lo, final double hi)
    {
        return Math.max(lo, Math.min(hi, v));
    }

    /** An exponential variate of the given mean. */
    public static double exponential(final SplittableRandom rng, final double mean)
    {
        return -mean * Math.log(1.0 - rng.nextDouble());
    }

    public static double uniform(final SplittableRandom rng, final double lo, final double hi)
    {
        return lo + (hi - lo) * rng.nextDouble();
    }

    /** A price in ticks (0.0001) from currency per GPU-hour, at least one tick. */
    public static long ticks(final double price)
    {
        return Math.max(1, Math.round(price * 10_000.0));
    }

    public static double price(final long ticks)
    {
        return ticks / 10_000.0;
    }
}
