package io.gpux.gateway.codec;

import io.netty.buffer.ByteBuf;

/**
 * Writes protobuf fields straight into a Netty buffer, as the generated classes serialize proto3
 * (a scalar at its default is left out; a set message field is written even when empty). Every
 * method returns the bytes the field takes and writes it only when {@code out} is not null, so one
 * method per message computes its size (a pass with null) and then writes it, and the two cannot
 * disagree.
 */
public final class WireWriter
{
    private static final int VARINT = 0;
    private static final int LENGTH_DELIMITED = 2;

    private WireWriter()
    {
    }

    /** The bytes of a varint: 1 to 10 (a negative value takes 10). */
    public static int varintSize(final long value)
    {
        return value == 0 ? 1 : (70 - Long.numberOfLeadingZeros(value)) / 7;
    }

    public static void writeVarint(final ByteBuf out, final long value)
    {
        long v = value;
        while ((v & ~0x7FL) != 0)
        {
            out.writeByte((int)(v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out.writeByte((int)v);
    }

    /** An int64 or uint64 field; also an int32 or enum field, sign-extended as protobuf writes them. */
    public static int int64(final ByteBuf out, final int field, final long value)
    {
        if (value == 0)
        {
            return 0;
        }
        final int tag = field << 3 | VARINT;
        if (out != null)
        {
            writeVarint(out, tag);
            writeVarint(out, value);
        }
        return varintSize(tag) + varintSize(value);
    }

    /** A uint32 field: the int's 32 bits unsigned. */
    public static int uint32(final ByteBuf out, final int field, final int value)
    {
        return int64(out, field, value & 0xFFFF_FFFFL);
    }

    public static int bool(final ByteBuf out, final int field, final boolean value)
    {
        return int64(out, field, value ? 1 : 0);
    }

    /** A string field, given as its UTF-8 bytes. */
    public static int string(final ByteBuf out, final int field, final byte[] utf8)
    {
        if (utf8.length == 0)
        {
            return 0;
        }
        final int tag = field << 3 | LENGTH_DELIMITED;
        if (out != null)
        {
            writeVarint(out, tag);
            writeVarint(out, utf8.length);
            out.writeBytes(utf8);
        }
        return varintSize(tag) + varintSize(utf8.length) + utf8.length;
    }

    /** The head (tag and length) of a message field whose message takes {@code size} bytes; returns head and message together. */
    public static int message(final ByteBuf out, final int field, final int size)
    {
        final int tag = field << 3 | LENGTH_DELIMITED;
        if (out != null)
        {
            writeVarint(out, tag);
            writeVarint(out, size);
        }
        return varintSize(tag) + varintSize(size) + size;
    }
}
