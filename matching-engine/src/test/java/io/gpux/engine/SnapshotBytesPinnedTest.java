package io.gpux.engine;

import io.gpux.engine.command.Command;
import io.gpux.engine.replay.RandomScenario;
import io.gpux.engine.replay.Symbols;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The snapshot bytes and the state hash of engines built from fixed random scenarios are pinned: a change
 * to how the state is written, read or walked that alters either fails here, since snapshot files and
 * recorded state hashes written before it must keep their meaning.
 */
class SnapshotBytesPinnedTest
{
    @ParameterizedTest
    @CsvSource({
        "42, 4000, 35a49edd1ea3dd8a85fc20e36106e59687c27851dad1d88783eb2f06caa5c4b6, 76c5703d47fe41fe",
        "7, 1500, e8625df1ae9c0a935d31e8e584a3afb173b3f3ceec726d9be08ccae012c1b835, 9b7399407d2188d6",
        "2026, 3000, ddac8ecfa05c8dcc81c8083c2d2fd5a86f98928ca04b4dc874128e5bf81b8f07, ffd309d3993b2352",
    })
    void snapshotBytesAndStateHashAreUnchanged(final long seed, final int commands, final String snapshotSha256,
        final String stateHash) throws Exception
    {
        final MatchingEngine engine = new MatchingEngine(event -> { });
        final List<Command> parsed = SnapshotEquivalenceTest.parse(new Symbols(), RandomScenario.scenario(seed, commands));
        for (final Command c : parsed)
        {
            engine.apply(c);
        }
        final byte[] bytes = SnapshotEquivalenceTest.snapshot(engine);
        final String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        assertEquals(snapshotSha256, sha, "snapshot bytes of scenario " + seed);
        assertEquals(stateHash, Long.toHexString(engine.stateHash()), "state hash of scenario " + seed);
        assertEquals(engine.stateHash(), SnapshotEquivalenceTest.restore(bytes).stateHash(), "restored state hash");
    }
}
