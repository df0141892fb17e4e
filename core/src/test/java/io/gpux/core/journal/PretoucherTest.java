package io.gpux.core.journal;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The pretoucher takes the journal writer's page faults: after it has run, the writer thread writes
 * megabytes of records with (almost) no page fault of its own, where without it every new page faults;
 * and it changes no record.
 */
class PretoucherTest
{
    private static final int RECORD = 200;
    private static final int BATCHES = 2_000;
    private static final int PER_BATCH = 10;

    @TempDir
    Path dir;

    @Test
    void theWriterTakesNoPageFaultOnPretouchedPagesAndNoRecordChanges() throws IOException
    {
        assumeTrue(Files.isReadable(Path.of("/proc/thread-self/stat")), "needs Linux /proc to count page faults");
        final List<byte[][]> written = new ArrayList<>(BATCHES + 1);
        final long without;
        final long with;
        try (Journal control = Journal.open(dir.resolve("control")); Journal touched = Journal.open(dir.resolve("touched")))
        {
            final Pretoucher pretoucher = new Pretoucher(message -> { }, touched);
            // every record made before the counting: the writer's own allocations would fault too
            final byte[][][] batches = new byte[BATCHES + 1][][];
            for (int i = 0; i <= BATCHES; i++)
            {
                batches[i] = batch(new SplittableRandom(i));
            }
            write(control, batches[0]);
            write(touched, batches[0]);
            written.add(batches[0]);
            int steps = 0;
            int work;
            while ((work = pretoucher.doWork()) > 0)
            {
                steps += work;
            }
            assumeTrue(steps > 0, "the kernel cannot populate mappings (MADV_POPULATE_WRITE needs Linux 5.14)");

            final long before = minorFaults();
            for (int i = 1; i <= BATCHES; i++)
            {
                write(control, batches[i]);
            }
            without = minorFaults() - before;

            final long start = minorFaults();
            for (int i = 1; i <= BATCHES; i++)
            {
                write(touched, batches[i]);
            }
            for (int i = 1; i <= BATCHES; i++)
            {
                written.add(batches[i]);
            }
            with = minorFaults() - start;
        }
        // 4 MB of records: without the pretoucher the writer faults on its new pages
        System.out.println("writer page faults over 4 MB of records: without the pretoucher " + without + ", with it " + with);
        assertTrue(without >= 16, "the control run took " + without + " page faults (the test cannot tell a difference)");
        assertTrue(with * 8 <= without, "with the pretoucher the writer took " + with + " page faults, without " + without);

        try (Journal reread = Journal.openReadOnly(dir.resolve("touched")))
        {
            final Journal.Reader reader = reread.reader();
            final byte[] record = new byte[RecordDescriptor.MAX_RECORD_LENGTH];
            for (final byte[][] batch : written)
            {
                for (final byte[] expected : batch)
                {
                    final int length = reader.next(record);
                    assertEquals(expected.length, length);
                    assertArrayEquals(expected, java.util.Arrays.copyOf(record, length));
                }
            }
            assertEquals(-1, reader.next(record));
        }
    }

    /** One batch of random records, each valid for the reader: a CRC32C of the rest in its first 4 bytes. */
    private static byte[][] batch(final SplittableRandom random)
    {
        final byte[][] records = new byte[PER_BATCH][RECORD];
        for (final byte[] record : records)
        {
            for (int i = 4; i < RECORD; i++)
            {
                record[i] = (byte)random.nextInt();
            }
            final CRC32C crc = new CRC32C();
            crc.update(record, 4, RECORD - 4);
            new UnsafeBuffer(record).putInt(0, (int)crc.getValue());
        }
        return records;
    }

    private static void write(final Journal journal, final byte[][] batch)
    {
        for (final byte[] record : batch)
        {
            journal.add(record, record.length);
        }
        journal.endBatch();
    }

    /** The calling thread's minor page faults so far (field 10 of /proc/thread-self/stat). */
    private static long minorFaults() throws IOException
    {
        final String stat = Files.readString(Path.of("/proc/thread-self/stat"));
        final String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(fields[7]);
    }
}
