package io.gpux.core.journal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One holder per data directory: the holder is named, the lock goes with {@code close()}, a LOCK file
 * left by a dead process does not count. (A second process is refused in the gateway's
 * {@code ServerStartupProcessTest}, over real server processes.)
 */
class DataDirectoryLockTest
{
    @TempDir
    Path dir;

    @Test
    void aSecondHolderIsRefusedWithTheFirstOnesPidUntilItCloses() throws Exception
    {
        final Path data = dir.resolve("fresh/data");
        final String pid = Long.toString(ProcessHandle.current().pid());
        try (DataDirectoryLock first = DataDirectoryLock.acquire(data))
        {
            assertTrue(Files.readString(data.resolve("LOCK")).startsWith("pid=" + pid + "\nstarted="), "the holder is written");
            final DataDirectoryLock.InUseException refused =
                assertThrows(DataDirectoryLock.InUseException.class, () -> DataDirectoryLock.acquire(data));
            assertTrue(refused.getMessage().startsWith("data directory " + data + " is in use by pid " + pid +
                " (this process, started "), refused.getMessage());
            assertEquals(refused.holder(), DataDirectoryLock.holder(data));
            assertEquals(first.dir(), data);
        }
        assertNull(DataDirectoryLock.holder(data), "released on close");
        DataDirectoryLock.acquire(data).close();
    }

    @Test
    void aLockFileLeftByADeadProcessIsTakenOver() throws Exception
    {
        Files.writeString(dir.resolve("LOCK"), "pid=999999999\nstarted=2020-01-01T00:00:00Z\n");
        assertNull(DataDirectoryLock.holder(dir), "a file without an OS lock holds nothing");
        try (DataDirectoryLock lock = DataDirectoryLock.acquire(dir))
        {
            assertTrue(Files.readString(dir.resolve("LOCK")).startsWith("pid=" + ProcessHandle.current().pid() + "\n"));
        }
        assertTrue(Files.exists(dir.resolve("LOCK")), "the file stays: only the OS lock counts");
    }

    @Test
    void aFileIsNotADataDirectory() throws Exception
    {
        final Path file = Files.writeString(dir.resolve("file"), "x");
        assertThrows(NotDirectoryException.class, () -> DataDirectoryLock.acquire(file));
        assertNull(DataDirectoryLock.holder(dir.resolve("missing")), "nothing holds a missing directory");
    }
}
