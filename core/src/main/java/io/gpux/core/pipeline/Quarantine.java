package io.gpux.core.pipeline;

import io.gpux.engine.command.Command;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.collections.Long2ObjectHashMap;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * The commands the engine failed on (threw while applying), by command sequence: a journaled command
 * that makes the engine throw would otherwise make every restart throw again on replay. The pipeline
 * records such a command here before it stops; recovery (and {@code gpux journal verify}) replays it as
 * a plain TICK at the same time and sequence (the timers due by then fire, as they did live) and skips
 * whatever events of it reached the event journal (their numbers stay taken), so that every replay
 * gives the same state.
 *
 * <p>The file {@code quarantine} in the data directory, one line per command: the command sequence, a
 * space, and the one-line reason. Written whole to a temporary file, forced to the device, then renamed
 * over the old one.
 */
public final class Quarantine
{
    static final String FILE = "quarantine";

    private final Path file;
    private final Long2ObjectHashMap<String> reasons = new Long2ObjectHashMap<>();
    private final StringBuilder text = new StringBuilder();
    /** Recovery: for each quarantined command it replayed, the last stored event of it that it skipped (0: none). */
    private final Long2LongHashMap replayed = new Long2LongHashMap(-1);

    private Quarantine(final Path file)
    {
        this.file = file;
    }

    /** Nothing quarantined, and nowhere to record a command. */
    public static Quarantine none()
    {
        return new Quarantine(null);
    }

    /** The quarantine of a data directory (empty if it has none yet). */
    public static Quarantine load(final Path dataDir) throws IOException
    {
        final Quarantine q = new Quarantine(dataDir.resolve(FILE));
        if (Files.exists(q.file))
        {
            final List<String> lines = Files.readAllLines(q.file, StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++)
            {
                final String line = lines.get(i);
                if (line.isBlank())
                {
                    continue;
                }
                final int space = line.indexOf(' ');
                try
                {
                    q.put(Long.parseLong(space < 0 ? line : line.substring(0, space)), space < 0 ? "" : line.substring(space + 1));
                }
                catch (final NumberFormatException ex)
                {
                    throw new IOException(q.file + " line " + (i + 1) + ": not a command sequence: " + line);
                }
            }
        }
        return q;
    }

    public boolean contains(final long commandSequence)
    {
        return reasons.containsKey(commandSequence);
    }

    public String reason(final long commandSequence)
    {
        return reasons.get(commandSequence);
    }

    public int size()
    {
        return reasons.size();
    }

    /** Records a command the engine failed on, durably, before the caller goes on. */
    public void add(final long commandSequence, final String reason) throws IOException
    {
        if (contains(commandSequence))
        {
            return;
        }
        put(commandSequence, reason);
        if (file == null)
        {
            return;
        }
        final Path tmp = file.resolveSibling(FILE + ".tmp");
        Files.writeString(tmp, text, StandardCharsets.UTF_8);
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE))
        {
            ch.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** Recovery replayed a quarantined command as a TICK and skipped its stored events through {@code lastEvent}. */
    void replayedAsTick(final long commandSequence, final long lastEvent)
    {
        replayed.put(commandSequence, lastEvent);
    }

    /**
     * A copy of what recovery replayed as TICKs: command sequence to the last event it skipped, so that another
     * thread (the snapshot replica) replays those commands the same way, without reading this quarantine.
     */
    Long2LongHashMap replayedAsTicks()
    {
        final Long2LongHashMap copy = new Long2LongHashMap(-1);
        replayed.forEachLong(copy::put);
        return copy;
    }

    private void put(final long commandSequence, final String reason)
    {
        final String oneLine = reason.replace('\n', ' ').replace('\r', ' ');
        reasons.put(commandSequence, oneLine);
        text.append(commandSequence).append(' ').append(oneLine).append('\n');
    }

    /**
     * One line for a command the engine failed on: its sequence, type and account, and the exception's
     * message with the place it was thrown from.
     */
    public static String describe(final Command command, final Throwable failure)
    {
        final StringBuilder sb = new StringBuilder(160).append("command ").append(command.sequence).append(" (")
            .append(command.type).append(", account ").append(command.accountId).append("): the engine failed: ")
            .append(failure.getClass().getSimpleName());
        if (failure.getMessage() != null)
        {
            sb.append(": ").append(failure.getMessage().replace('\n', ' '));
        }
        final StackTraceElement[] trace = failure.getStackTrace();
        if (trace.length > 0)
        {
            sb.append(" (at ").append(trace[0]).append(')');
        }
        return sb.toString();
    }

    /** The engine failed on a command: the core stops; the next start skips the command. */
    public static final class PoisonCommandException extends RuntimeException
    {
        private final long commandSequence;

        PoisonCommandException(final long commandSequence, final String reason, final Throwable cause)
        {
            super(reason, cause, false, false);
            this.commandSequence = commandSequence;
        }

        public long commandSequence()
        {
            return commandSequence;
        }
    }
}
