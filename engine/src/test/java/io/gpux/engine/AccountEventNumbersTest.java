package io.gpux.engine;

import io.gpux.engine.event.Recipients;
import io.gpux.engine.funds.Account;
import io.gpux.engine.replay.RandomScenario;
import io.gpux.engine.replay.ScenarioException;
import io.gpux.engine.replay.ScenarioReplayer;
import org.agrona.collections.Long2LongHashMap;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The engine numbers each account's private events gap-free as it emits them, each with a back-link to the
 * account's previous event; the numbers are state: the account holds its last, a snapshot carries them, and
 * the state hash covers them.
 */
class AccountEventNumbersTest
{
    @Test
    void everyRecipientsEventsAreNumberedGapFreeAndLinkedBackOnRandomScenarios() throws Exception
    {
        final List<String> problems = new ArrayList<>();
        long numbered = 0;
        for (long seed = 1; seed <= 10; seed++)
        {
            final Long2LongHashMap count = new Long2LongHashMap(0);
            final Long2LongHashMap lastEvent = new Long2LongHashMap(0);
            final long[] recipients = new long[2];
            final ScenarioReplayer replayer = new ScenarioReplayer(new StringBuilder());
            final long s = seed;
            final long[] seen = new long[1];
            replayer.engine().sink(e ->
            {
                final int n = Recipients.of(e, recipients);
                for (int i = 0; i < n; i++)
                {
                    if (replayer.engine().account(recipients[i]) == null)
                    {
                        continue;
                    }
                    final long expected = count.get(recipients[i]) + 1;
                    if (e.accountSeq(i) != expected || e.previous(i) != lastEvent.get(recipients[i]))
                    {
                        problems.add("seed " + s + " event " + e.sequence + " " + e.type + " for " + recipients[i] + ": " +
                            e.accountSeq(i) + " back to " + e.previous(i) + ", expected " + expected + " back to " +
                            lastEvent.get(recipients[i]));
                    }
                    count.put(recipients[i], expected);
                    lastEvent.put(recipients[i], e.sequence);
                    seen[0]++;
                }
            });
            replay(replayer, RandomScenario.scenario(seed, 3_000));
            numbered += seen[0];
            for (final Account a : replayer.engine().accounts())
            {
                assertEquals(count.get(a.id), a.lastSeq, "seed " + seed + " account " + a.id);
                assertEquals(lastEvent.get(a.id), a.lastEventSequence, "seed " + seed + " account " + a.id);
            }
        }
        assertTrue(numbered > 10_000, "events numbered: " + numbered);
        assertTrue(problems.isEmpty(), String.join("\n", problems.subList(0, Math.min(20, problems.size()))));
    }

    @Test
    void aSnapshotCarriesTheNumbersAndTheStateHashCoversThem() throws Exception
    {
        final ScenarioReplayer replayer = new ScenarioReplayer(new StringBuilder());
        replay(replayer, RandomScenario.scenario(7, 2_000));
        final MatchingEngine engine = replayer.engine();
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        EngineSnapshot.write(engine, new DataOutputStream(bytes));
        final MatchingEngine restored = new MatchingEngine(e -> { });
        EngineSnapshot.read(restored, new DataInputStream(new java.io.ByteArrayInputStream(bytes.toByteArray())));
        int withEvents = 0;
        for (final Account a : engine.accounts())
        {
            assertEquals(a.lastSeq, restored.account(a.id).lastSeq);
            assertEquals(a.lastEventSequence, restored.account(a.id).lastEventSequence);
            withEvents += a.lastSeq > 0 ? 1 : 0;
        }
        assertTrue(withEvents > 1);
        assertEquals(engine.stateHash(), restored.stateHash());
        final Account some = restored.accounts().iterator().next();
        some.lastSeq++;
        assertTrue(engine.stateHash() != restored.stateHash(), "the state hash covers the event numbers");
    }

    private static void replay(final ScenarioReplayer replayer, final String scenario) throws IOException
    {
        try
        {
            replayer.replay(new StringReader(scenario));
        }
        catch (final ScenarioException ex)
        {
            throw new IOException(ex);
        }
    }
}
