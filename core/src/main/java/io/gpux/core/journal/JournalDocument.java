package io.gpux.core.journal;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.wire.DocumentContext;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.zip.CRC32C;

/**
 * One queue document of a {@link Journal}, split into its records; {@code valid} is false if any framing
 * or CRC fails (the layout of {@link RecordDescriptor}), {@code isVoid} true for a VOID document, which
 * names the torn tail document it voids. Owned by one reader thread at a time: it is refilled in place
 * for each document read.
 */
final class JournalDocument
{
    /** A VOID document: 4-byte magic then the voided document's queue index. */
    static final int VOID_MAGIC = 0x564F4944;
    static final int VOID_LENGTH = 12;

    byte[] bytes = new byte[1 << 16];
    int length;
    long index;
    int recordCount;
    int[] offsets = new int[256];
    int[] lengths = new int[256];
    boolean valid;
    boolean isVoid;
    long voided;
    private final CRC32C crc = new CRC32C();
    private final UnsafeBuffer view = new UnsafeBuffer(new byte[1]);

    boolean read(final ExcerptTailer tailer)
    {
        try (DocumentContext dc = tailer.readingDocument())
        {
            if (!dc.isPresent())
            {
                return false;
            }
            final Bytes<?> in = dc.wire().bytes();
            length = (int)in.readRemaining();
            if (bytes.length < length)
            {
                bytes = new byte[Math.max(length, bytes.length * 2)];
            }
            in.read(bytes, 0, length);
            index = dc.index();
        }
        parse();
        return true;
    }

    private void parse()
    {
        final UnsafeBuffer b = view;
        b.wrap(bytes, 0, Math.max(length, 1));
        isVoid = length == VOID_LENGTH && b.getInt(0) == VOID_MAGIC;
        voided = isVoid ? b.getLong(4) : -1;
        recordCount = 0;
        valid = !isVoid && length > 0;
        int at = 0;
        while (valid && at < length)
        {
            if (at + 4 > length)
            {
                valid = false;
                break;
            }
            final int n = b.getInt(at);
            if (n < RecordDescriptor.FIELDS_OFFSET || n > RecordDescriptor.MAX_RECORD_LENGTH || at + 4 + n > length)
            {
                valid = false;
                break;
            }
            crc.reset();
            crc.update(bytes, at + 4 + 4, n - 4);
            if ((int)crc.getValue() != b.getInt(at + 4))
            {
                valid = false;
                break;
            }
            if (recordCount == offsets.length)
            {
                offsets = java.util.Arrays.copyOf(offsets, recordCount * 2);
                lengths = java.util.Arrays.copyOf(lengths, recordCount * 2);
            }
            offsets[recordCount] = at + 4;
            lengths[recordCount] = n;
            recordCount++;
            at += 4 + n;
        }
    }
}
