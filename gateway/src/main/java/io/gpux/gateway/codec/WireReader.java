package io.gpux.gateway.codec;

/**
 * Reads the protobuf wire format from a region of a byte array without allocating: tags, varints,
 * length-delimited fields, and unknown fields skipped (groups included) by the rules of protobuf-java's
 * {@code CodedInputStream}. Whatever it cannot read the way protobuf-java would (malformed input,
 * groups nested deeper than {@link #MAX_GROUP_DEPTH}) throws the preallocated {@link #GIVE_UP}: the
 * caller then parses the frame with the generated classes, which accept or refuse it exactly as before.
 */
final class WireReader
{
    static final int VARINT = 0;
    static final int FIXED64 = 1;
    static final int LENGTH_DELIMITED = 2;
    static final int START_GROUP = 3;
    static final int END_GROUP = 4;
    static final int FIXED32 = 5;

    /** Deeper unknown groups than this are left to protobuf-java (whose own limit is 100 levels of nesting). */
    static final int MAX_GROUP_DEPTH = 32;

    /** Thrown (never filled in, never allocated again) when the input is not read here. */
    static final GiveUp GIVE_UP = new GiveUp();

    /** See {@link #GIVE_UP}. */
    static final class GiveUp extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        private GiveUp()
        {
            super("left to the generated parser", null, false, false);
        }
    }

    private byte[] bytes;
    private int pos;
    private int limit;

    /** Reads {@code length} bytes of {@code bytes} from {@code offset}. */
    void wrap(final byte[] bytes, final int offset, final int length)
    {
        this.bytes = bytes;
        this.pos = offset;
        this.limit = offset + length;
    }

    byte[] bytes()
    {
        return bytes;
    }

    int position()
    {
        return pos;
    }

    /** The next tag, or 0 at the end of the current message. */
    int readTag()
    {
        if (pos == limit)
        {
            return 0;
        }
        final int tag = (int)readVarint();
        if (tag >>> 3 == 0)
        {
            throw GIVE_UP; // field number 0: protobuf's "invalid tag"
        }
        return tag;
    }

    /** A varint of at most 10 bytes (bits beyond 64 dropped, as protobuf does); 32-bit fields take its low half. */
    long readVarint()
    {
        long value = 0;
        for (int shift = 0; shift < 64; shift += 7)
        {
            if (pos == limit)
            {
                throw GIVE_UP;
            }
            final byte b = bytes[pos++];
            value |= (long)(b & 0x7f) << shift;
            if (b >= 0)
            {
                return value;
            }
        }
        throw GIVE_UP; // more than 10 bytes: malformed
    }

    /** The length of a length-delimited field, checked against what is left of the current message. */
    int readLength()
    {
        final int length = (int)readVarint();
        if (length < 0 || length > limit - pos)
        {
            throw GIVE_UP;
        }
        return length;
    }

    /** Narrows reading to the next {@code length} bytes (checked by {@link #readLength}); returns the limit to restore. */
    int pushLimit(final int length)
    {
        final int old = limit;
        limit = pos + length;
        return old;
    }

    /** Restores the limit {@link #pushLimit} returned, once the narrowed part is read to its end. */
    void popLimit(final int oldLimit)
    {
        limit = oldLimit;
    }

    /** Skips {@code length} bytes (already checked by {@link #readLength}). */
    void skip(final int length)
    {
        pos += length;
    }

    /**
     * Skips the field whose tag was just read, as protobuf-java keeps an unknown field: an END_GROUP
     * here (outside the group it would close) or a wire type 6 or 7 is malformed.
     *
     * @param depth how many groups enclose this field.
     */
    void skipField(final int tag, final int depth)
    {
        switch (tag & 7)
        {
            case VARINT -> readVarint();
            case FIXED64 -> skipFixed(8);
            case LENGTH_DELIMITED -> skip(readLength());
            case FIXED32 -> skipFixed(4);
            case START_GROUP -> skipGroup(tag >>> 3, depth + 1);
            default -> throw GIVE_UP;
        }
    }

    private void skipFixed(final int n)
    {
        if (limit - pos < n)
        {
            throw GIVE_UP;
        }
        pos += n;
    }

    private void skipGroup(final int fieldNumber, final int depth)
    {
        if (depth > MAX_GROUP_DEPTH)
        {
            throw GIVE_UP;
        }
        while (true)
        {
            final int tag = readTag();
            if (tag == 0)
            {
                throw GIVE_UP; // the message ends inside the group
            }
            if ((tag & 7) == END_GROUP)
            {
                if (tag >>> 3 != fieldNumber)
                {
                    throw GIVE_UP;
                }
                return;
            }
            skipField(tag, depth);
        }
    }

    /**
     * Whether {@code length} bytes from {@code offset} are well-formed UTF-8 as protobuf requires of a
     * proto3 string: no overlong forms, no surrogates, nothing above U+10FFFF.
     */
    static boolean isValidUtf8(final byte[] bytes, final int offset, final int length)
    {
        int i = offset;
        final int end = offset + length;
        while (i < end)
        {
            final int b = bytes[i++];
            if (b >= 0)
            {
                continue;
            }
            if (b < (byte)0xC2)
            {
                return false; // a continuation byte first, or an overlong 2-byte form
            }
            if (b < (byte)0xE0)
            {
                if (i >= end || bytes[i++] > (byte)0xBF)
                {
                    return false;
                }
            }
            else if (b < (byte)0xF0)
            {
                if (end - i < 2)
                {
                    return false;
                }
                final int b2 = bytes[i++];
                if (b2 > (byte)0xBF
                    || b == (byte)0xE0 && b2 < (byte)0xA0  // overlong
                    || b == (byte)0xED && b2 >= (byte)0xA0 // a surrogate
                    || bytes[i++] > (byte)0xBF)
                {
                    return false;
                }
            }
            else
            {
                if (end - i < 3)
                {
                    return false;
                }
                final int b2 = bytes[i++];
                // b2 taken as 0..0x3F past 0x80: the code point's bits 12-17, beyond U+10FFFF when b > 0xF4 or b2 too big
                if (b2 > (byte)0xBF
                    || (((b << 28) + (b2 - (byte)0x90)) >> 30) != 0
                    || bytes[i++] > (byte)0xBF
                    || bytes[i++] > (byte)0xBF)
                {
                    return false;
                }
            }
        }
        return true;
    }
}
