package io.gpux.gateway.egress;

import io.gpux.gateway.session.Session;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ResendsTest
{
    /** Two resends in progress (their readers are never touched: the step stands in for the cursor's reads). */
    private static Resends twoResends(final long[] now)
    {
        final Resends resends = new Resends(new Egress.ResendLimits(4, 4, 1 << 20), () -> now[0]);
        resends.start(new Session(1, new EmbeddedChannel(), 101, "a", 0, false, 1), null, 0, 1_000);
        resends.start(new Session(2, new EmbeddedChannel(), 102, "b", 0, false, 1), null, 0, 1_000);
        return resends;
    }

    @Test
    void aSliceEndsOnceItsTimeIsGoneHoweverFewDocumentsItRead()
    {
        final long[] now = {0};
        final Resends resends = twoResends(now);
        final List<Long> turns = new ArrayList<>();
        // costly documents: each turn reads 2 and takes 60 us
        final int read = resends.run((c, max) ->
        {
            turns.add(c.session.id);
            now[0] += 60_000;
            return 2;
        });
        // turns begin at 0, 60, 120 and 180 us; the one due at 240 us is past the slice's 200 us
        assertEquals(200_000, Resends.SLICE_NS);
        assertEquals(List.of(1L, 2L, 1L, 2L), turns);
        assertEquals(8, read);
    }

    @Test
    void cheapDocumentsEndTheSliceAtTheDocumentBudgetInTurnsOfAQuantum()
    {
        final long[] now = {0};
        final Resends resends = twoResends(now);
        final List<Integer> asked = new ArrayList<>();
        final List<Long> turns = new ArrayList<>();
        final int read = resends.run((c, max) ->
        {
            asked.add(max);
            turns.add(c.session.id);
            now[0] += 1_000;
            return max;
        });
        assertEquals(Resends.BUDGET, read);
        assertEquals(Resends.BUDGET / Resends.QUANTUM, turns.size());
        assertEquals(List.of(Resends.QUANTUM), asked.stream().distinct().toList());
        // round-robin: each session had half the turns, alternating
        for (int i = 0; i < turns.size(); i++)
        {
            assertEquals(i % 2 == 0 ? 1L : 2L, turns.get(i));
        }
    }
}
