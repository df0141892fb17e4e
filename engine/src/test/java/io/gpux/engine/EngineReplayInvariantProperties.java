package io.gpux.engine;

import io.gpux.engine.InvariantStream.Act;
import io.gpux.engine.InvariantStream.Setup;
import io.gpux.engine.InvariantStream.Setups;
import io.gpux.engine.InvariantStream.ShortActions;
import io.gpux.engine.command.Command;
import io.gpux.engine.replay.ScenarioParser;
import io.gpux.engine.replay.ScenarioPrinter;
import io.gpux.engine.replay.ScenarioReplayer;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Invariant 6 (rulebook section 12) over the random command streams of {@link InvariantStream}: the
 * same lines on a second engine print the same text and reach the same state hash after every line,
 * and so does an engine restored from a snapshot taken part way; along the way the {@link
 * InvariantChecker} runs after every line and the state hash must change with every state-changing
 * command and stay put for a rejected one ({@link InvariantRun}). Each property runs ten times its tries
 * under {@code -Pstress} ({@link StressTries}).
 */
@AddLifecycleHook(StressTries.class)
class EngineReplayInvariantProperties
{
    /**
     * Invariant 6: the same lines on two fresh engines print the same text and reach the same hashes;
     * and an engine restored from a snapshot of the second one, taken part way, prints and hashes the
     * same from there on.
     */
    @Property(tries = 10)
    void sameCommandsGiveSameEventsAndStateHash(@ForAll(supplier = Setups.class) final Setup setup,
        @ForAll(supplier = ShortActions.class) final List<Act> acts,
        @ForAll @IntRange(min = 0, max = 100) final int snapshotAtPercent)
        throws Exception
    {
        final InvariantRun a = InvariantRun.run(setup, acts, true);
        final StringBuilder out = new StringBuilder();
        final ScenarioReplayer b = new ScenarioReplayer(out);
        final int snapshotAt = (a.lines.size() - 1) * snapshotAtPercent / 100;
        final StringBuilder restoredOut = new StringBuilder();
        MatchingEngine restored = null;
        final ScenarioParser restoredParser = new ScenarioParser(b.symbols());
        final Command command = new Command();
        int start = 0;
        for (int i = 0; i < a.lines.size(); i++)
        {
            final String line = a.lines.get(i);
            try
            {
                b.line(line);
                if (restored != null && restoredParser.parse(line, i + 1, command))
                {
                    restored.apply(command);
                }
            }
            catch (final Exception ex)
            {
                throw a.failure(ex);
            }
            final int end = a.outputEnds.get(i);
            if (out.length() != end || !out.substring(start, end).equals(a.out.substring(start, end)))
            {
                throw a.failure(new AssertionError("second engine printed differently at line " + (i + 1) + ": " + line));
            }
            if (b.engine().stateHash() != a.hashes.get(i))
            {
                throw a.failure(new AssertionError("state hashes differ after line " + (i + 1) + ": " + line));
            }
            if (restored != null)
            {
                if (!restoredOut.toString().equals(out.substring(a.outputEnds.get(snapshotAt), end)))
                {
                    throw a.failure(new AssertionError("engine restored from a snapshot after line " + (snapshotAt + 1) +
                        " printed differently at line " + (i + 1) + ": " + line));
                }
                if (restored.stateHash() != a.hashes.get(i))
                {
                    throw a.failure(new AssertionError("engine restored from a snapshot after line " + (snapshotAt + 1) +
                        ": state hash differs after line " + (i + 1) + ": " + line));
                }
            }
            if (i == snapshotAt)
            {
                final java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
                EngineSnapshot.write(b.engine(), new java.io.DataOutputStream(bytes));
                restored = new MatchingEngine(new ScenarioPrinter(b.symbols(), restoredOut));
                EngineSnapshot.read(restored, new java.io.DataInputStream(
                    new java.io.ByteArrayInputStream(bytes.toByteArray())));
                if (restored.stateHash() != a.hashes.get(i))
                {
                    throw a.failure(new AssertionError("engine restored from a snapshot after line " + (i + 1) +
                        " has another state hash"));
                }
            }
            start = end;
        }
        assertEquals(a.out.toString(), out.toString());
        // the whole text again, as one replay
        assertEquals(a.out.toString(), ScenarioReplayer.replay(a.scenario()));
    }
}
