package io.gpux.engine;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Coverage-guided fuzzing of the engine: Jazzer's bytes become well-formed commands ({@link FuzzCommands})
 * applied to an engine ({@link FuzzRun}), which must never throw, with the {@link InvariantChecker} holding after
 * every command.
 *
 * <p>A plain {@code ./mvnw verify} runs {@link #commands} on its regression inputs only, from
 * {@code src/test/resources/io/gpux/engine/EngineFuzzTestInputs/commands/}. To fuzz (a finding is written to
 * that directory as {@code crash-<sha1>} and fails every plain run until fixed; the corpus Jazzer grows goes to
 * {@code engine/.cifuzz-corpus/}, not for git):
 * <pre>
 *   JAZZER_FUZZ=1 ./mvnw -pl engine -am verify -Dtest=EngineFuzzTest -Dsurefire.failIfNoSpecifiedTests=false \
 *       -Djazzer.max_duration=5m
 * </pre>
 * An input of libFuzzer's 4,096 bytes at most is about 400 commands, each followed by a full invariant check: a few
 * inputs a second on one free core, so give it the minutes (or the cores) that budget allows.
 */
class EngineFuzzTest
{
    @FuzzTest(maxDuration = "5m")
    void commands(final byte[] data)
    {
        FuzzRun.run(data);
    }
}
