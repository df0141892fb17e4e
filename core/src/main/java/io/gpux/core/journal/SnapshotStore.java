package io.gpux.core.journal;

import io.gpux.engine.EngineSnapshot;
import io.gpux.engine.MatchingEngine;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * Engine snapshots in a folder: {@code snapshot-<command sequence>.snap}, each written to a temporary
 * file, forced to disk and atomically renamed; the newest {@code keep} are kept.
 *
 * <pre>
 *   magic "GPXN" | version | command sequence covered | journal queue index of that command |
 *   last event sequence | state hash | body length | CRC32C of body | body (EngineSnapshot)
 * </pre>
 */
public class SnapshotStore
{
    private static final int MAGIC = 0x4750584E;
    private static final int VERSION = 1;
    private static final int HEADER = 4 + 4 + 8 + 8 + 8 + 8 + 4 + 4;

    /** A snapshot read back: the engine it restored and what it covers. */
    public record Loaded(Path file, long commandSequence, long journalIndex, long eventSequence, long stateHash)
    {
    }

    private final Path dir;
    private final int keep;

    public SnapshotStore(final Path dir, final int keep)
    {
        this.dir = dir;
        this.keep = Math.max(1, keep);
    }

    /**
     * A snapshot taken at a consistent point (after a batch, on the thread that owns the engine) and not yet
     * on disk: the serialized engine and the header fields that say what it covers.
     */
    public record Captured(long commandSequence, long journalIndex, long eventSequence, long stateHash, byte[] body)
    {
    }

    public Path write(final MatchingEngine engine, final long commandSequence, final long journalIndex) throws IOException
    {
        return persist(capture(engine, commandSequence, journalIndex));
    }

    /**
     * Serializes the engine as of command {@code commandSequence} (journal index {@code journalIndex}); reads
     * the engine, so it runs on the engine's thread. Touches no file.
     */
    public static Captured capture(final MatchingEngine engine, final long commandSequence, final long journalIndex)
        throws IOException
    {
        final ByteArrayOutputStream body = new ByteArrayOutputStream(1 << 16);
        EngineSnapshot.write(engine, new DataOutputStream(body));
        return new Captured(commandSequence, journalIndex, engine.eventSequence(), engine.stateHash(), body.toByteArray());
    }

    /**
     * Writes a captured snapshot to a temporary file, forces it to disk, renames it into place atomically and
     * prunes the oldest beyond {@code keep}; any thread may run it, the engine is not read.
     */
    public Path persist(final Captured captured) throws IOException
    {
        Files.createDirectories(dir);
        final byte[] bytes = captured.body();
        final CRC32C crc = new CRC32C();
        crc.update(bytes);
        final ByteBuffer header = ByteBuffer.allocate(HEADER);
        header.putInt(MAGIC).putInt(VERSION).putLong(captured.commandSequence()).putLong(captured.journalIndex())
            .putLong(captured.eventSequence()).putLong(captured.stateHash())
            .putInt(bytes.length).putInt((int)crc.getValue()).flip();
        final Path target = fileOf(captured.commandSequence());
        final Path tmp = dir.resolve(target.getFileName() + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE))
        {
            ch.write(header);
            final ByteBuffer data = ByteBuffer.wrap(bytes);
            while (data.hasRemaining())
            {
                ch.write(data);
            }
            ch.force(true);
        }
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        prune();
        return target;
    }

    /** The file the snapshot covering command {@code commandSequence} has (or would have) in this folder. */
    public Path fileOf(final long commandSequence)
    {
        return dir.resolve(String.format("snapshot-%020d.snap", commandSequence));
    }

    private void prune() throws IOException
    {
        final List<Path> files = list();
        for (int i = 0; i < files.size() - keep; i++)
        {
            Files.deleteIfExists(files.get(i));
        }
    }

    /** Snapshot files, oldest first. */
    public List<Path> list() throws IOException
    {
        if (!Files.isDirectory(dir))
        {
            return new ArrayList<>();
        }
        try (Stream<Path> s = Files.list(dir))
        {
            return new ArrayList<>(s.filter(p -> p.getFileName().toString().matches("snapshot-\\d{20}\\.snap")).sorted().toList());
        }
    }

    /**
     * Restores the newest valid snapshot into a fresh engine, skipping (and reporting) corrupt ones.
     *
     * @return what was loaded, or null if no valid snapshot exists (the engine is untouched).
     */
    public Loaded loadNewest(final MatchingEngine engine, final Consumer<String> report) throws IOException
    {
        return loadNewest(engine, report, Long.MAX_VALUE);
    }

    /**
     * As {@link #loadNewest(MatchingEngine, Consumer)}, among snapshots whose events do not go beyond
     * {@code maxEventSequence} (a snapshot ahead of the event journal cannot regenerate what it lacks).
     */
    public Loaded loadNewest(final MatchingEngine engine, final Consumer<String> report, final long maxEventSequence)
        throws IOException
    {
        final List<Path> files = list();
        for (int i = files.size() - 1; i >= 0; i--)
        {
            final Path file = files.get(i);
            final String problem = check(file);
            if (problem != null)
            {
                report.accept("snapshot " + file.getFileName() + " skipped: " + problem);
                continue;
            }
            final long events = eventSequence(file);
            if (events > maxEventSequence)
            {
                report.accept("snapshot " + file.getFileName() + " skipped: it covers event " + events +
                    ", the event journal ends at " + maxEventSequence);
                continue;
            }
            return load(file, engine);
        }
        return null;
    }

    private static long eventSequence(final Path file) throws IOException
    {
        final ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file));
        return b.getLong(4 + 4 + 8 + 8);
    }

    /** @return null if the file is a complete, uncorrupted snapshot, else the problem. */
    public static String check(final Path file) throws IOException
    {
        final byte[] all = Files.readAllBytes(file);
        if (all.length < HEADER)
        {
            return "truncated header";
        }
        final ByteBuffer b = ByteBuffer.wrap(all);
        if (b.getInt() != MAGIC)
        {
            return "not a snapshot";
        }
        if (b.getInt() != VERSION)
        {
            return "unsupported version";
        }
        b.getLong();
        b.getLong();
        b.getLong();
        b.getLong();
        final int length = b.getInt();
        final int crc = b.getInt();
        if (length < 0 || HEADER + length != all.length)
        {
            return "length " + length + " does not match file size " + all.length;
        }
        final CRC32C c = new CRC32C();
        c.update(all, HEADER, length);
        return (int)c.getValue() == crc ? null : "checksum mismatch";
    }

    /** Restores a checked snapshot file into a fresh engine and verifies the state hash it recorded. */
    public static Loaded load(final Path file, final MatchingEngine engine) throws IOException
    {
        final byte[] all = Files.readAllBytes(file);
        final ByteBuffer b = ByteBuffer.wrap(all);
        b.getInt();
        b.getInt();
        final long commandSequence = b.getLong();
        final long journalIndex = b.getLong();
        final long eventSequence = b.getLong();
        final long hash = b.getLong();
        final int length = b.getInt();
        b.getInt();
        EngineSnapshot.read(engine, new DataInputStream(new java.io.ByteArrayInputStream(all, HEADER, length)));
        if (engine.stateHash() != hash)
        {
            throw new IOException("snapshot " + file.getFileName() + " restores to state hash " +
                Long.toHexString(engine.stateHash()) + ", recorded " + Long.toHexString(hash));
        }
        return new Loaded(file, commandSequence, journalIndex, eventSequence, hash);
    }
}
