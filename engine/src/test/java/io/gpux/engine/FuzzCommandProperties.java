package io.gpux.engine;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AddLifecycleHook;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fuzz test's command generator ({@link FuzzCommands}) over random bytes instead of a fuzzer's: the engine
 * never throws and its invariants hold after every command ({@link FuzzRun}); a failure shrinks to fewer bytes
 * and prints the commands in the scenario format. Ten times the tries under {@code -Pstress} ({@link StressTries}).
 */
@AddLifecycleHook(StressTries.class)
class FuzzCommandProperties
{
    @Property(tries = 100)
    void theEngineNeverThrowsAndItsInvariantsHold(@ForAll @Size(min = 2, max = 1_500) final byte[] data)
    {
        assertTrue(FuzzRun.run(data) > 0, "at least one command read from " + data.length + " bytes");
    }
}
