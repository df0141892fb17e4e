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
        "42, 4000, b4ba373cacf83ea29aad8aac995be5520874a69896e6379dca842735a8e48457, 600de4f0583770a0",
        "7, 1500, 1cd7e373d06bb1b332981457a4b36881d1aaa23605dbb214081571e383aa3f08, 2e9ca331b711b692",
        "2026, 3000, 8a9035ce957b25621c5c128f0e1db0f61c3a9f4fd4dc9e14034aa756783cf06d, b6e3566147a1c4e7",
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
