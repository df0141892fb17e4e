package io.gpux.core.journal;

import io.gpux.engine.ArrayDataInput;
import io.gpux.engine.ArrayDataOutput;
import io.gpux.engine.EngineSnapshot;
import io.gpux.engine.MatchingEngine;

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
    private static final int EVENT_SEQUENCE_OFFSET = 4 + 4 + 8 + 8;

    /**
     * A snapshot read back: what it covers, and the {@link Twin} restoring it a second time when one was asked
     * for (else null).
     */
    public record Loaded(Path file, long commandSequence, long journalIndex, long eventSequence, long stateHash,
        Twin twin)
    {
    }

    /**
     * The same snapshot bytes restored into a second engine on a thread of its own ({@code gpux-snapshot-twin}),
     * where the state hash the snapshot recorded is checked, while the first engine goes on (recovery replays the
     * journal after the snapshot); the second engine is then the snapshot replica's start, so the replica neither
     * reads nor restores the file again. Restoring is deterministic: both engines hold the same state, and the
     * check on the twin is the check on both.
     */
    public static final class Twin
    {
        private final Path file;
        private final long recordedHash;
        private final Thread thread;
        private MatchingEngine engine;
        private Throwable failure;

        private Twin(final Path file, final byte[] all, final int length, final long recordedHash)
        {
            this.file = file;
            this.recordedHash = recordedHash;
            thread = new Thread(() -> restore(all, length), "gpux-snapshot-twin");
            thread.setDaemon(true);
            thread.start();
        }

        private void restore(final byte[] all, final int length)
        {
            try
            {
                final MatchingEngine restored = new MatchingEngine(event -> { });
                EngineSnapshot.read(restored, new ArrayDataInput(all, HEADER, length));
                final long hash = restored.stateHash();
                if (hash != recordedHash)
                {
                    failure = new IOException(mismatch(file, hash, recordedHash));
                    return;
                }
                engine = restored;
            }
            catch (final Throwable ex)
            {
                // whatever stopped the restore (an out-of-memory error included) fails the check: never a silent pass
                failure = ex;
            }
        }

        /**
         * Waits for the twin's restore and check.
         *
         * @return the twin engine, at the snapshot's state, which has applied nothing.
         * @throws IOException if the snapshot did not restore to the state hash it recorded, or did not restore.
         */
        public MatchingEngine await() throws IOException
        {
            try
            {
                thread.join();
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted waiting for snapshot " + file.getFileName());
            }
            if (failure instanceof IOException io)
            {
                throw io;
            }
            if (failure != null)
            {
                throw new IOException("snapshot " + file.getFileName() + " does not restore: " + failure, failure);
            }
            return engine;
        }
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
    public record Captured(long commandSequence, long journalIndex, long eventSequence, long stateHash, byte[] body,
        int bodyLength)
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
        return capture(engine, commandSequence, journalIndex, new ArrayDataOutput(1 << 16));
    }

    /**
     * As {@link #capture(MatchingEngine, long, long)}, serializing into {@code buffer} (reset first): the captured
     * snapshot holds that buffer's array, so the buffer must not be reused until it is persisted.
     */
    public static Captured capture(final MatchingEngine engine, final long commandSequence, final long journalIndex,
        final ArrayDataOutput buffer) throws IOException
    {
        buffer.reset();
        EngineSnapshot.write(engine, buffer);
        return new Captured(commandSequence, journalIndex, engine.eventSequence(), engine.stateHash(), buffer.array(),
            buffer.position());
    }

    /**
     * Writes a captured snapshot to a temporary file, forces it to disk, renames it into place atomically and
     * prunes the oldest beyond {@code keep}; any thread may run it, the engine is not read.
     */
    public Path persist(final Captured captured) throws IOException
    {
        Files.createDirectories(dir);
        final byte[] bytes = captured.body();
        final int length = captured.bodyLength();
        final CRC32C crc = new CRC32C();
        crc.update(bytes, 0, length);
        final ByteBuffer header = ByteBuffer.allocate(HEADER);
        header.putInt(MAGIC).putInt(VERSION).putLong(captured.commandSequence()).putLong(captured.journalIndex())
            .putLong(captured.eventSequence()).putLong(captured.stateHash())
            .putInt(length).putInt((int)crc.getValue()).flip();
        final Path target = fileOf(captured.commandSequence());
        final Path tmp = dir.resolve(target.getFileName() + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE))
        {
            ch.write(header);
            final ByteBuffer data = ByteBuffer.wrap(bytes, 0, length);
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
     * {@code maxEventSequence} (a snapshot ahead of the event journal cannot regenerate what it lacks). Each
     * file is read once, in one bulk read, and checked, vetted and restored from those bytes.
     */
    public Loaded loadNewest(final MatchingEngine engine, final Consumer<String> report, final long maxEventSequence)
        throws IOException
    {
        return loadNewest(engine, report, maxEventSequence, false);
    }

    /**
     * As {@link #loadNewest(MatchingEngine, Consumer, long)}; with {@code twin}, the state hash is checked on a
     * {@link Twin} instead of on {@code engine}, and the caller must {@link Twin#await} it before it trusts the
     * engine with anything it writes.
     */
    public Loaded loadNewest(final MatchingEngine engine, final Consumer<String> report, final long maxEventSequence,
        final boolean twin) throws IOException
    {
        final List<Path> files = list();
        for (int i = files.size() - 1; i >= 0; i--)
        {
            final Path file = files.get(i);
            final byte[] all = Files.readAllBytes(file);
            final String problem = check(all);
            if (problem != null)
            {
                report.accept("snapshot " + file.getFileName() + " skipped: " + problem);
                continue;
            }
            final long events = ByteBuffer.wrap(all).getLong(EVENT_SEQUENCE_OFFSET);
            if (events > maxEventSequence)
            {
                report.accept("snapshot " + file.getFileName() + " skipped: it covers event " + events +
                    ", the event journal ends at " + maxEventSequence);
                continue;
            }
            return load(file, all, engine, twin);
        }
        return null;
    }

    /** @return null if the file is a complete, uncorrupted snapshot, else the problem. */
    public static String check(final Path file) throws IOException
    {
        return check(Files.readAllBytes(file));
    }

    /** @return null if {@code all} (a whole snapshot file) is a complete, uncorrupted snapshot, else the problem. */
    private static String check(final byte[] all)
    {
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
        return load(file, Files.readAllBytes(file), engine, false);
    }

    /** As {@link #load(Path, MatchingEngine)}; with {@code twin}, see {@link #loadNewest(MatchingEngine, Consumer, long, boolean)}. */
    public static Loaded load(final Path file, final MatchingEngine engine, final boolean twin) throws IOException
    {
        return load(file, Files.readAllBytes(file), engine, twin);
    }

    private static Loaded load(final Path file, final byte[] all, final MatchingEngine engine, final boolean twin)
        throws IOException
    {
        final ByteBuffer b = ByteBuffer.wrap(all);
        b.getInt();
        b.getInt();
        final long commandSequence = b.getLong();
        final long journalIndex = b.getLong();
        final long eventSequence = b.getLong();
        final long hash = b.getLong();
        final int length = b.getInt();
        if (length < 0 || HEADER + length > all.length)
        {
            throw new IOException("snapshot " + file.getFileName() + ": body length " + length + " does not fit the file");
        }
        final Twin restoring = twin ? new Twin(file, all, length, hash) : null;
        EngineSnapshot.read(engine, new ArrayDataInput(all, HEADER, length));
        if (restoring == null)
        {
            final long restored = engine.stateHash();
            if (restored != hash)
            {
                throw new IOException(mismatch(file, restored, hash));
            }
        }
        return new Loaded(file, commandSequence, journalIndex, eventSequence, hash, restoring);
    }

    private static String mismatch(final Path file, final long restored, final long recorded)
    {
        return "snapshot " + file.getFileName() + " restores to state hash " + Long.toHexString(restored) +
            ", recorded " + Long.toHexString(recorded);
    }
}
