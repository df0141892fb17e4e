package io.gpux.engine;

import java.io.DataOutput;
import java.io.UTFDataFormatException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * {@link DataOutput} into a growable byte array, writing exactly the bytes {@link java.io.DataOutputStream}
 * writes (big-endian, modified UTF-8): the snapshot writer's sink. Each field is one store, with no lock and no
 * intermediate stream; {@link #reset()} keeps the array, so that a writer that snapshots again and again (the
 * snapshot replica) reuses it. Not thread-safe.
 */
public final class ArrayDataOutput implements DataOutput
{
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);
    private static final int MAX_ARRAY = Integer.MAX_VALUE - 8;

    private byte[] bytes;
    private int position;

    public ArrayDataOutput(final int initialCapacity)
    {
        bytes = new byte[Math.max(16, initialCapacity)];
    }

    /** The array written into: its first {@link #position()} bytes are what was written. */
    public byte[] array()
    {
        return bytes;
    }

    /** How many bytes have been written since the last {@link #reset()}. */
    public int position()
    {
        return position;
    }

    /** Starts over at the beginning of the same array. */
    public void reset()
    {
        position = 0;
    }

    /** Makes room for {@code n} more bytes, growing the array if need be: read {@link #bytes} only after it. */
    private int reserve(final int n)
    {
        final int at = position;
        if (n > bytes.length - at)
        {
            final long needed = (long)at + n;
            if (needed > MAX_ARRAY)
            {
                throw new IllegalStateException("snapshot over " + MAX_ARRAY + " bytes");
            }
            bytes = Arrays.copyOf(bytes, (int)Math.min(MAX_ARRAY, Math.max(needed, bytes.length * 2L)));
        }
        position = at + n;
        return at;
    }

    @Override
    public void write(final int b)
    {
        final int at = reserve(1);
        bytes[at] = (byte)b;
    }

    @Override
    public void write(final byte[] b)
    {
        write(b, 0, b.length);
    }

    @Override
    public void write(final byte[] b, final int off, final int len)
    {
        final int at = reserve(len);
        System.arraycopy(b, off, bytes, at, len);
    }

    @Override
    public void writeBoolean(final boolean v)
    {
        write(v ? 1 : 0);
    }

    @Override
    public void writeByte(final int v)
    {
        write(v);
    }

    @Override
    public void writeShort(final int v)
    {
        final int at = reserve(Short.BYTES);
        SHORT.set(bytes, at, (short)v);
    }

    @Override
    public void writeChar(final int v)
    {
        writeShort(v);
    }

    @Override
    public void writeInt(final int v)
    {
        final int at = reserve(Integer.BYTES);
        INT.set(bytes, at, v);
    }

    @Override
    public void writeLong(final long v)
    {
        final int at = reserve(Long.BYTES);
        LONG.set(bytes, at, v);
    }

    @Override
    public void writeFloat(final float v)
    {
        writeInt(Float.floatToIntBits(v));
    }

    @Override
    public void writeDouble(final double v)
    {
        writeLong(Double.doubleToLongBits(v));
    }

    @Override
    public void writeBytes(final String s)
    {
        final int at = reserve(s.length());
        for (int i = 0; i < s.length(); i++)
        {
            bytes[at + i] = (byte)s.charAt(i);
        }
    }

    @Override
    public void writeChars(final String s)
    {
        for (int i = 0; i < s.length(); i++)
        {
            writeChar(s.charAt(i));
        }
    }

    /** Modified UTF-8 after a two-byte length, as {@link java.io.DataOutputStream#writeUTF} writes it. */
    @Override
    public void writeUTF(final String s) throws UTFDataFormatException
    {
        int length = 0;
        for (int i = 0; i < s.length(); i++)
        {
            final char c = s.charAt(i);
            length += c >= 0x0001 && c <= 0x007F ? 1 : c <= 0x07FF ? 2 : 3;
        }
        if (length > 0xFFFF)
        {
            throw new UTFDataFormatException("encoded string too long: " + length + " bytes");
        }
        writeShort(length);
        int at = reserve(length);
        for (int i = 0; i < s.length(); i++)
        {
            final char c = s.charAt(i);
            if (c >= 0x0001 && c <= 0x007F)
            {
                bytes[at++] = (byte)c;
            }
            else if (c <= 0x07FF)
            {
                bytes[at++] = (byte)(0xC0 | ((c >> 6) & 0x1F));
                bytes[at++] = (byte)(0x80 | (c & 0x3F));
            }
            else
            {
                bytes[at++] = (byte)(0xE0 | ((c >> 12) & 0x0F));
                bytes[at++] = (byte)(0x80 | ((c >> 6) & 0x3F));
                bytes[at++] = (byte)(0x80 | (c & 0x3F));
            }
        }
    }
}
