package io.gpux.engine;

import java.io.DataInput;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * {@link DataInput} straight over a byte array, big-endian as {@link java.io.DataOutputStream} writes: the
 * snapshot reader's source. Each field is one load, where a {@code DataInputStream} over a
 * {@code ByteArrayInputStream} takes a lock and copies for every field (most of the time of restoring a large
 * engine). Reading past the end throws {@link EOFException}. Not thread-safe.
 */
public final class ArrayDataInput implements DataInput
{
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);

    private final byte[] bytes;
    private final int limit;
    private int position;

    /** Reads {@code length} bytes of {@code bytes} from {@code offset}. */
    public ArrayDataInput(final byte[] bytes, final int offset, final int length)
    {
        if (offset < 0 || length < 0 || offset > bytes.length - length)
        {
            throw new IndexOutOfBoundsException("offset " + offset + ", length " + length + " of " + bytes.length);
        }
        this.bytes = bytes;
        this.position = offset;
        this.limit = offset + length;
    }

    public ArrayDataInput(final byte[] bytes)
    {
        this(bytes, 0, bytes.length);
    }

    /** Bytes left to read. */
    public int remaining()
    {
        return limit - position;
    }

    private int advance(final int n) throws EOFException
    {
        final int at = position;
        if (n > limit - at)
        {
            throw new EOFException("snapshot ends " + (limit - at) + " bytes into a field of " + n);
        }
        position = at + n;
        return at;
    }

    @Override
    public void readFully(final byte[] b) throws IOException
    {
        readFully(b, 0, b.length);
    }

    @Override
    public void readFully(final byte[] b, final int off, final int len) throws IOException
    {
        System.arraycopy(bytes, advance(len), b, off, len);
    }

    @Override
    public int skipBytes(final int n)
    {
        final int skipped = Math.max(0, Math.min(n, limit - position));
        position += skipped;
        return skipped;
    }

    @Override
    public boolean readBoolean() throws IOException
    {
        return bytes[advance(1)] != 0;
    }

    @Override
    public byte readByte() throws IOException
    {
        return bytes[advance(1)];
    }

    @Override
    public int readUnsignedByte() throws IOException
    {
        return bytes[advance(1)] & 0xFF;
    }

    @Override
    public short readShort() throws IOException
    {
        return (short)SHORT.get(bytes, advance(Short.BYTES));
    }

    @Override
    public int readUnsignedShort() throws IOException
    {
        return readShort() & 0xFFFF;
    }

    @Override
    public char readChar() throws IOException
    {
        return (char)readShort();
    }

    @Override
    public int readInt() throws IOException
    {
        return (int)INT.get(bytes, advance(Integer.BYTES));
    }

    @Override
    public long readLong() throws IOException
    {
        return (long)LONG.get(bytes, advance(Long.BYTES));
    }

    @Override
    public float readFloat() throws IOException
    {
        return Float.intBitsToFloat(readInt());
    }

    @Override
    public double readDouble() throws IOException
    {
        return Double.longBitsToDouble(readLong());
    }

    /** Not part of the snapshot format. */
    @Override
    public String readLine()
    {
        throw new UnsupportedOperationException("readLine");
    }

    @Override
    public String readUTF() throws IOException
    {
        return DataInputStream.readUTF(this);
    }
}
