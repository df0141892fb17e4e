package io.gpux.client.agent.workload;

import io.gpux.client.agent.GpuInfo;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Example;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GpuAssignmentTest
{
    static List<GpuInfo> gpus(final int count)
    {
        return IntStream.range(0, count)
            .mapToObj(i -> new GpuInfo(i, "NVIDIA H200", "GPU-" + i, null, null, null, 143771, "9.0", 700_000, 1980))
            .collect(Collectors.toList());
    }

    private static List<Integer> indices(final List<GpuInfo> gpus)
    {
        return gpus.stream().map(GpuInfo::index).collect(Collectors.toList());
    }

    /** A step: start lease {@code lease} with {@code count} GPUs, or (count 0) end it. */
    record Step(long lease, int count)
    {
    }

    @Provide
    Arbitrary<List<Step>> steps()
    {
        final Arbitrary<Step> step = Combinators.combine(Arbitraries.longs().between(1, 12), Arbitraries.integers().between(0, 5))
            .as(Step::new);
        return step.list().ofMaxSize(200);
    }

    @Property(tries = 300)
    void noGpuIsEverHeldByTwoLiveLeases(@ForAll("steps") final List<Step> steps)
    {
        final GpuAssignment assignment = new GpuAssignment(gpus(8));
        final Map<Long, List<Integer>> live = new HashMap<>();
        for (final Step step : steps)
        {
            if (step.count() == 0)
            {
                assertEquals(live.remove(step.lease()) != null, assignment.release(step.lease()));
            }
            else if (live.containsKey(step.lease()))
            {
                assertThrows(IllegalStateException.class, () -> assignment.assign(step.lease(), step.count()));
            }
            else
            {
                final int free = 8 - live.values().stream().mapToInt(List::size).sum();
                if (step.count() > free)
                {
                    final IllegalStateException ex = assertThrows(IllegalStateException.class,
                        () -> assignment.assign(step.lease(), step.count()));
                    assertEquals("lease " + step.lease() + " needs " + step.count() + " GPUs, " + free + " of 8 are free",
                        ex.getMessage());
                }
                else
                {
                    final List<Integer> got = indices(assignment.assign(step.lease(), step.count()));
                    assertEquals(step.count(), got.size());
                    live.put(step.lease(), got);
                }
            }

            final Set<Integer> seen = new HashSet<>();
            for (final Map.Entry<Long, List<Integer>> lease : live.entrySet())
            {
                for (final int gpu : lease.getValue())
                {
                    assertTrue(seen.add(gpu), "GPU " + gpu + " given to two live leases");
                    assertEquals(lease.getKey(), assignment.holderOf(gpu));
                }
                assertEquals(lease.getValue(), indices(assignment.gpusOf(lease.getKey())));
            }
            assertEquals(8 - seen.size(), assignment.freeCount());
        }
    }

    @Example
    void aRetryLandsOnGpusOtherThanTheJustReleasedOnes()
    {
        final GpuAssignment assignment = new GpuAssignment(gpus(8));
        assertEquals(List.of(0, 1), indices(assignment.assign(1, 2)));
        assignment.release(1);
        assertEquals(List.of(2, 3), indices(assignment.assign(2, 2)));
        assertEquals(List.of(4, 5, 6, 7), indices(assignment.assign(3, 4)));
        assignment.release(3);
        assignment.release(2);
        assertEquals(List.of(0, 1, 4, 5), indices(assignment.assign(4, 4)));
    }

    @Example
    void adoptionRefusesAGpuAnotherLeaseHolds()
    {
        final GpuAssignment assignment = new GpuAssignment(gpus(4));
        assertEquals(List.of(2, 3), indices(assignment.adopt(9, List.of(3, 2))));
        final IllegalStateException taken = assertThrows(IllegalStateException.class, () -> assignment.adopt(10, List.of(1, 2)));
        assertEquals("lease 10 held GPU 2, now held by lease 9", taken.getMessage());
        assertEquals(-1, assignment.holderOf(1));
        final IllegalStateException unknown = assertThrows(IllegalStateException.class, () -> assignment.adopt(11, List.of(7)));
        assertEquals("lease 11 held GPU 7, which this machine lacks", unknown.getMessage());
        assertEquals(new ArrayList<>(List.of(0, 1)), indices(assignment.assign(12, 2)));
    }
}
