package io.gpux.client.agent.workload;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The last lines of a log file, read from its end so a large log costs no more than its tail. */
final class LogTail
{
    private static final int CHUNK = 8192;
    /** Most bytes read back, whatever the number of lines asked. */
    private static final long MAX_BYTES = 1 << 20;

    private LogTail()
    {
    }

    static List<String> read(final Path file, final int lines) throws WorkloadException
    {
        if (lines <= 0 || !Files.exists(file))
        {
            return List.of();
        }
        try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r"))
        {
            final long length = in.length();
            long from = length;
            int newlines = 0;
            final byte[] chunk = new byte[CHUNK];
            while (from > 0 && newlines <= lines && length - from < MAX_BYTES)
            {
                final int size = (int)Math.min(CHUNK, from);
                from -= size;
                in.seek(from);
                in.readFully(chunk, 0, size);
                for (int i = 0; i < size; i++)
                {
                    if (chunk[i] == '\n')
                    {
                        newlines++;
                    }
                }
            }
            final byte[] tail = new byte[(int)(length - from)];
            in.seek(from);
            in.readFully(tail);
            final List<String> all = new ArrayList<>(Arrays.asList(new String(tail, StandardCharsets.UTF_8).split("\n", -1)));
            if (!all.isEmpty() && all.get(all.size() - 1).isEmpty())
            {
                all.remove(all.size() - 1);
            }
            return List.copyOf(all.subList(Math.max(0, all.size() - lines), all.size()));
        }
        catch (final IOException ex)
        {
            throw new WorkloadException("cannot read " + file + ": " + ex.getMessage());
        }
    }
}
