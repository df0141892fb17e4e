package io.gpux.core.journal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A small tmpfs mounted for a test (a disk that fills up in seconds), which the test can grow while it
 * runs, unmounted on {@link #close()}. Mounting needs root: {@link #mount} answers null where it is
 * not permitted, for the test to skip with a reason.
 */
public final class SmallTmpfs implements AutoCloseable
{
    private final Path path;

    private SmallTmpfs(final Path path)
    {
        this.path = path;
    }

    /** Mounts a tmpfs of {@code size} (as mount takes it: "8m") on a new directory {@code at}; null if not permitted. */
    public static SmallTmpfs mount(final Path at, final String size) throws IOException, InterruptedException
    {
        Files.createDirectories(at);
        return run("mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", at.toString()) == 0 ? new SmallTmpfs(at) : null;
    }

    public Path path()
    {
        return path;
    }

    /** Grows (or shrinks) the mounted file system, keeping its files. */
    public void resize(final String size) throws IOException, InterruptedException
    {
        if (run("mount", "-o", "remount,size=" + size, path.toString()) != 0)
        {
            throw new IOException("could not remount " + path + " with size " + size);
        }
    }

    @Override
    public void close() throws IOException, InterruptedException
    {
        run("umount", "-l", path.toString());
    }

    private static int run(final String... command) throws IOException, InterruptedException
    {
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        return p.waitFor(10, TimeUnit.SECONDS) ? p.exitValue() : -1;
    }
}
