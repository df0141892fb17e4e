package io.gpux.sim.report;

import java.util.Arrays;

/** One market's demand (value, GPUs) and supply (cost, GPUs) at a moment. */
final class DemandSupply
{
    private double[] values = new double[64];
    private int[] demandUnits = new int[64];
    private int demands;
    private double[] costs = new double[64];
    private int[] supplyUnits = new int[64];
    private int supplies;

    void clear()
    {
        demands = 0;
        supplies = 0;
    }

    void demand(final double value, final int units)
    {
        if (demands == values.length)
        {
            values = Arrays.copyOf(values, demands * 2);
            demandUnits = Arrays.copyOf(demandUnits, demands * 2);
        }
        values[demands] = value;
        demandUnits[demands++] = units;
    }

    void supply(final double cost, final int units)
    {
        if (supplies == costs.length)
        {
            costs = Arrays.copyOf(costs, supplies * 2);
            supplyUnits = Arrays.copyOf(supplyUnits, supplies * 2);
        }
        costs[supplies] = cost;
        supplyUnits[supplies++] = units;
    }

    /** Pairs the highest values with the lowest costs, GPU by GPU, while value exceeds cost. */
    double maxSurplus()
    {
        final Integer[] d = order(values, demands, false);
        final Integer[] s = order(costs, supplies, true);
        double surplus = 0;
        int di = 0;
        int si = 0;
        int dLeft = demands > 0 ? demandUnits[d[0]] : 0;
        int sLeft = supplies > 0 ? supplyUnits[s[0]] : 0;
        while (di < demands && si < supplies)
        {
            final double gain = values[d[di]] - costs[s[si]];
            if (gain <= 0)
            {
                break;
            }
            final int k = Math.min(dLeft, sLeft);
            surplus += gain * k;
            dLeft -= k;
            sLeft -= k;
            if (dLeft == 0 && ++di < demands)
            {
                dLeft = demandUnits[d[di]];
            }
            if (sLeft == 0 && ++si < supplies)
            {
                sLeft = supplyUnits[s[si]];
            }
        }
        return surplus;
    }

    private static Integer[] order(final double[] keys, final int n, final boolean ascending)
    {
        final Integer[] idx = new Integer[n];
        for (int i = 0; i < n; i++)
        {
            idx[i] = i;
        }
        Arrays.sort(idx, (a, b) -> ascending ? Double.compare(keys[a], keys[b]) : Double.compare(keys[b], keys[a]));
        return idx;
    }
}
