package io.gpux.engine;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The snapshot's array reader and writer against the JDK's data streams: the same bytes written, the same
 * values read back, so that snapshots written either way read either way.
 */
class ArrayDataTest
{
    private static void fields(final DataOutput out, final long l, final int i, final short s, final byte b,
        final boolean z, final String text) throws IOException
    {
        out.writeLong(l);
        out.writeInt(i);
        out.writeShort(s);
        out.writeByte(b);
        out.writeBoolean(z);
        out.writeUTF(text);
        out.writeChar(text.isEmpty() ? 'x' : text.charAt(0));
        out.writeDouble(Double.longBitsToDouble(l));
        out.writeFloat(Float.intBitsToFloat(i));
        out.write(new byte[] {1, 2, 3}, 1, 2);
    }

    @Property(tries = 300)
    void writesTheBytesDataOutputStreamWritesAndReadsThemBack(@ForAll final long l, @ForAll final int i,
        @ForAll final short s, @ForAll final byte b, @ForAll final boolean z, @ForAll final String text)
        throws IOException
    {
        final ByteArrayOutputStream jdk = new ByteArrayOutputStream();
        fields(new DataOutputStream(jdk), l, i, s, b, z, text);
        // a tiny first array: every field written across a growth at some point of the run
        final ArrayDataOutput array = new ArrayDataOutput(1);
        fields(array, l, i, s, b, z, text);
        assertArrayEquals(jdk.toByteArray(), Arrays.copyOf(array.array(), array.position()));

        final ArrayDataInput in = new ArrayDataInput(array.array(), 0, array.position());
        final DataInputStream reference = new DataInputStream(new ByteArrayInputStream(jdk.toByteArray()));
        assertEquals(reference.readLong(), in.readLong());
        assertEquals(reference.readInt(), in.readInt());
        assertEquals(reference.readShort(), in.readShort());
        assertEquals(reference.readByte(), in.readByte());
        assertEquals(reference.readBoolean(), in.readBoolean());
        assertEquals(text, in.readUTF());
        reference.readUTF();
        assertEquals(reference.readChar(), in.readChar());
        assertEquals(Double.doubleToRawLongBits(reference.readDouble()), Double.doubleToRawLongBits(in.readDouble()));
        assertEquals(Float.floatToRawIntBits(reference.readFloat()), Float.floatToRawIntBits(in.readFloat()));
        assertEquals(reference.readUnsignedByte(), in.readUnsignedByte());
        assertEquals(reference.readUnsignedByte(), in.readUnsignedByte());
        assertEquals(0, in.remaining());
    }

    @Test
    void readsOnlyItsRangeAndStopsAtItsEnd() throws IOException
    {
        final byte[] bytes = {9, 0, 0, 0, 7, 1, 2};
        final ArrayDataInput in = new ArrayDataInput(bytes, 1, 5);
        assertEquals(7, in.readInt());
        assertTrue(in.readBoolean());
        final EOFException ex = assertThrows(EOFException.class, in::readLong);
        assertTrue(ex.getMessage().contains("0 bytes into a field of 8"), ex.getMessage());
        assertThrows(IndexOutOfBoundsException.class, () -> new ArrayDataInput(bytes, 3, 5));
    }

    @Test
    void resetWritesOverTheSameArray()
    {
        final ArrayDataOutput out = new ArrayDataOutput(16);
        out.writeLong(1);
        final byte[] first = out.array();
        out.reset();
        out.writeInt(2);
        assertEquals(4, out.position());
        assertSame(first, out.array(), "the array is kept");
        assertFalse(out.array().length < 16);
    }
}
