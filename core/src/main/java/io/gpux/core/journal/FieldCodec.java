package io.gpux.core.journal;

import org.agrona.MutableDirectBuffer;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/** Varint fields and the CRC of a record being written into, or read from, a buffer. */
final class FieldCodec
{
    private final CRC32C crc = new CRC32C();
    MutableDirectBuffer buffer;
    int position;
    /** The buffer's heap array (the codecs' case), written and read directly: varints a byte at a time. */
    private byte[] array;
    private int arrayOffset;

    void begin(final MutableDirectBuffer buffer, final int position)
    {
        this.buffer = buffer;
        this.position = position;
        array = buffer.byteArray();
        arrayOffset = array == null ? 0 : buffer.wrapAdjustment();
    }

    void putVarLong(final long value)
    {
        long v = (value << 1) ^ (value >> 63);
        final byte[] a = array;
        if (a != null)
        {
            // a plain array store per byte (still bounds-checked by the JVM) instead of a buffer call
            int p = arrayOffset + position;
            while ((v & ~0x7FL) != 0)
            {
                a[p++] = (byte)((v & 0x7F) | 0x80);
                v >>>= 7;
            }
            a[p++] = (byte)v;
            position = p - arrayOffset;
            return;
        }
        while ((v & ~0x7FL) != 0)
        {
            buffer.putByte(position++, (byte)((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        buffer.putByte(position++, (byte)v);
    }

    long getVarLong()
    {
        long v = 0;
        int shift = 0;
        byte b;
        final byte[] a = array;
        if (a != null)
        {
            int p = arrayOffset + position;
            do
            {
                if (shift > 63)
                {
                    throw new IllegalArgumentException("bad varint");
                }
                b = a[p++];
                v |= (long)(b & 0x7F) << shift;
                shift += 7;
            }
            while ((b & 0x80) != 0);
            position = p - arrayOffset;
            return (v >>> 1) ^ -(v & 1);
        }
        do
        {
            if (shift > 63)
            {
                throw new IllegalArgumentException("bad varint");
            }
            b = buffer.getByte(position++);
            v |= (long)(b & 0x7F) << shift;
            shift += 7;
        }
        while ((b & 0x80) != 0);
        return (v >>> 1) ^ -(v & 1);
    }

    void putString(final String s)
    {
        final byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        putVarLong(bytes.length);
        buffer.putBytes(position, bytes);
        position += bytes.length;
    }

    String getString()
    {
        final int length = (int)getVarLong();
        if (length < 0 || length > RecordDescriptor.MAX_RECORD_LENGTH)
        {
            throw new IllegalArgumentException("bad string length " + length);
        }
        final byte[] bytes = new byte[length];
        buffer.getBytes(position, bytes);
        position += length;
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** CRC32C of a record's bytes after the CRC field: [4, length). */
    int crc(final byte[] record, final int length)
    {
        crc.reset();
        crc.update(record, 4, length - 4);
        return (int)crc.getValue();
    }

    /** @return null if the record has a valid header and checksum, else the problem. */
    String check(final byte[] record, final MutableDirectBuffer b, final int length, final byte kind)
    {
        if (length < RecordDescriptor.FIELDS_OFFSET || length > RecordDescriptor.MAX_RECORD_LENGTH)
        {
            return "bad record length " + length;
        }
        if (crc(record, length) != b.getInt(RecordDescriptor.CRC_OFFSET))
        {
            return "checksum mismatch";
        }
        if (b.getShort(RecordDescriptor.VERSION_OFFSET) != RecordDescriptor.VERSION)
        {
            return "unsupported record version " + b.getShort(RecordDescriptor.VERSION_OFFSET);
        }
        if (b.getByte(RecordDescriptor.KIND_OFFSET) != kind)
        {
            return "record kind " + b.getByte(RecordDescriptor.KIND_OFFSET) + ", expected " + kind;
        }
        return null;
    }
}
