package io.gpux.engine;

import io.gpux.engine.command.Command;
import io.gpux.engine.machine.Machine;
import io.gpux.engine.market.Market;
import io.gpux.engine.replay.RandomScenario;
import io.gpux.engine.replay.ScenarioParser;
import io.gpux.engine.replay.Symbols;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A market's machine GPUs (all, largest, per region), kept as machines register, equal a walk over every
 * machine of the exchange: over random scenarios, and after a snapshot is written and read back.
 */
class MarketMachineCountsTest
{
    @Test
    void countsEqualAWalkOverEveryMachineLiveAndAfterASnapshot() throws Exception
    {
        int checked = 0;
        for (long seed = 1; seed <= 4; seed++)
        {
            final Symbols symbols = new Symbols();
            final ScenarioParser parser = new ScenarioParser(symbols);
            final MatchingEngine engine = new MatchingEngine(e -> { });
            int lineNo = 0;
            for (final String line : RandomScenario.scenario(seed, 2000).split("\n"))
            {
                final Command cmd = new Command();
                if (parser.parse(line, ++lineNo, cmd))
                {
                    engine.apply(cmd);
                }
                if (lineNo % 97 == 0)
                {
                    checked += check(engine);
                }
            }
            checked += check(engine);
            checked += check(SnapshotEquivalenceTest.restore(SnapshotEquivalenceTest.snapshot(engine)));
        }
        assertTrue(checked > 0, "the scenarios registered machines");
    }

    /** @return how many markets had machines. */
    private static int check(final MatchingEngine engine)
    {
        final Set<Long> regions = new HashSet<>();
        regions.add(0L);
        regions.add(-1L);
        for (final Machine m : engine.machines())
        {
            regions.add(m.regionId);
        }
        int withMachines = 0;
        for (final Market market : engine.markets())
        {
            for (final long region : regions)
            {
                long all = 0;
                long largest = 0;
                for (final Machine m : engine.machines())
                {
                    if (m.market == market && (region == 0 || m.regionId == region))
                    {
                        all += m.gpus;
                        largest = Math.max(largest, m.gpus);
                    }
                }
                assertEquals(all, market.machineGpus(region), market.name + " region " + region);
                assertEquals(largest, market.largestMachineGpus(region), market.name + " region " + region);
                withMachines += region == 0 && all > 0 ? 1 : 0;
            }
        }
        return withMachines;
    }
}
