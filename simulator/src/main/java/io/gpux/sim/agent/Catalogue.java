package io.gpux.sim.agent;

import java.util.List;
import java.util.SplittableRandom;

/**
 * The GPU classes of the simulated market, their reference prices, machine sizes and regions.
 *
 * <p>Prices are rounded 2025 figures, approximate and for simulation only (not quotes): peer
 * marketplaces (Vast.ai-style community clouds) list an A100-80G around $0.8/GPU-hour and an
 * RTX 4090 around $0.25-0.30, H100 around $1.5-2.5 with H200 above it and MI300X close to H100,
 * L40S around $0.6-1.0, Ascend 910B close to A100; on-demand clouds charge several times more (up to
 * about $3.5 for an A100-80G). Annual failure rates follow the order of magnitude reported for large
 * H100 training clusters (about 9 % of GPUs a year, GPU and HBM faults together); consumer cards are
 * assumed a little more reliable per GPU.
 */
public final class Catalogue
{
    public static final List<GpuClass> CLASSES = List.of(
        new GpuClass("H100-SXM-80G", "NVIDIA H100 SXM 80 GB", 2.00, 3.90, 0.25, false, 0.09, 500, 80, 700),
        new GpuClass("H200-141G", "NVIDIA H200 141 GB", 2.60, 4.30, 0.08, false, 0.09, 650, 141, 700),
        new GpuClass("A100-80G", "NVIDIA A100 80 GB", 0.85, 3.50, 0.20, false, 0.07, 200, 80, 400),
        new GpuClass("L40S-48G", "NVIDIA L40S 48 GB", 0.80, 1.85, 0.12, false, 0.05, 200, 48, 350),
        new GpuClass("RTX4090-24G", "NVIDIA GeForce RTX 4090 24 GB", 0.28, 0.69, 0.20, true, 0.04, 70, 24, 450),
        new GpuClass("MI300X-192G", "AMD Instinct MI300X 192 GB", 1.95, 3.00, 0.08, false, 0.09, 500, 192, 750),
        new GpuClass("ASCEND910B-64G", "Huawei Ascend 910B 64 GB", 0.85, 1.60, 0.07, false, 0.08, 200, 64, 400));

    public static final List<String> REGIONS = List.of("us-east", "us-west", "eu-west", "eu-central", "ap-southeast");

    private static final int[] DATACENTER_SIZES = {1, 2, 4, 8, 16};
    private static final double[] DATACENTER_WEIGHTS = {0.12, 0.13, 0.25, 0.47, 0.03};
    private static final int[] CONSUMER_SIZES = {1, 2, 4, 8};
    private static final double[] CONSUMER_WEIGHTS = {0.30, 0.30, 0.25, 0.15};

    private Catalogue()
    {
    }

    public static GpuClass bySymbol(final String symbol)
    {
        for (final GpuClass c : CLASSES)
        {
            if (c.symbol().equals(symbol))
            {
                return c;
            }
        }
        throw new IllegalArgumentException("no GPU class " + symbol);
    }

    public static int indexOf(final String symbol)
    {
        for (int i = 0; i < CLASSES.size(); i++)
        {
            if (CLASSES.get(i).symbol().equals(symbol))
            {
                return i;
            }
        }
        return -1;
    }

    /** A GPU class drawn by fleet share. */
    public static GpuClass drawClass(final SplittableRandom rng)
    {
        double u = rng.nextDouble();
        for (final GpuClass c : CLASSES)
        {
            u -= c.fleetShare();
            if (u < 0)
            {
                return c;
            }
        }
        return CLASSES.get(CLASSES.size() - 1);
    }

    /** GPUs in a machine of this class: 1, 2, 4 or 8 mostly, 16 rarely (never for consumer cards). */
    public static int drawMachineSize(final GpuClass c, final SplittableRandom rng)
    {
        return c.consumer() ? pick(CONSUMER_SIZES, CONSUMER_WEIGHTS, rng) : pick(DATACENTER_SIZES, DATACENTER_WEIGHTS, rng);
    }

    public static String drawRegion(final SplittableRandom rng)
    {
        return REGIONS.get(rng.nextInt(REGIONS.size()));
    }

    static int pick(final int[] values, final double[] weights, final SplittableRandom rng)
    {
        double u = rng.nextDouble();
        for (int i = 0; i < values.length; i++)
        {
            u -= weights[i];
            if (u < 0)
            {
                return values[i];
            }
        }
        return values[values.length - 1];
    }
}
