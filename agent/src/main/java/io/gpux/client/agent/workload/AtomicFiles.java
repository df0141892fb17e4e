package io.gpux.client.agent.workload;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** Writes a file so that a reader sees the old content or the new, never a part: temp file, then rename. */
final class AtomicFiles
{
    private AtomicFiles()
    {
    }

    static void write(final Path file, final byte[] content) throws IOException
    {
        Files.createDirectories(file.getParent());
        final Path temp = file.resolveSibling("." + file.getFileName() + ".tmp");
        Files.write(temp, content);
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
