package io.gpux.gateway.codec;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import io.gpux.proto.v1.Envelope;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Wire bytes for the decoder's tests, written with protobuf's own CodedOutputStream: a message laid out
 * as a client might (its fields one by one in any order, a body given in two parts that protobuf merges,
 * unknown fields of every wire type, groups included, between them), and byte-level mutations.
 */
final class WireInput
{
    private WireInput()
    {
    }

    /** The same Envelope, its fields shuffled, with unknown fields and a split body when {@code noise}. */
    static byte[] layout(final Envelope env, final Random r, final boolean noise)
    {
        final FieldDescriptor bodyField = env.getDescriptorForType().findFieldByNumber(env.getBodyCase().getNumber());
        final Message body = (Message)env.getField(bodyField);
        final List<byte[]> chunks = new ArrayList<>();
        for (final Map.Entry<FieldDescriptor, Object> f : body.getAllFields().entrySet())
        {
            chunks.add(body.newBuilderForType().setField(f.getKey(), f.getValue()).build().toByteArray());
        }
        if (noise)
        {
            final int n = r.nextInt(4);
            for (int i = 0; i < n; i++)
            {
                chunks.add(unknownField(r, known(body), 0));
            }
        }
        Collections.shuffle(chunks, r);
        final List<byte[]> top = new ArrayList<>();
        final int parts = noise && chunks.size() > 1 && r.nextInt(3) == 0 ? 2 : 1;
        final int cut = parts == 2 ? 1 + r.nextInt(chunks.size() - 1) : chunks.size();
        top.add(field(bodyField.getNumber(), concat(chunks.subList(0, cut))));
        if (parts == 2)
        {
            top.add(field(bodyField.getNumber(), concat(chunks.subList(cut, chunks.size()))));
        }
        if (env.getRequestId() != 0 || noise && r.nextBoolean())
        {
            top.add(varintField(Envelope.REQUEST_ID_FIELD_NUMBER, env.getRequestId()));
        }
        if (noise)
        {
            final int n = r.nextInt(3);
            for (int i = 0; i < n; i++)
            {
                top.add(unknownField(r, known(env), 0));
            }
            // the body's parts keep their order (protobuf merges them in order), the rest goes anywhere
            final byte[] first = top.remove(0);
            final byte[] second = parts == 2 ? top.remove(0) : null;
            Collections.shuffle(top, r);
            final int at = r.nextInt(top.size() + 1);
            top.add(at, first);
            if (second != null)
            {
                top.add(at + 1 + r.nextInt(top.size() - at), second);
            }
        }
        return concat(top);
    }

    /** Field number to wire type, of every field the message type declares. */
    static Map<Integer, Integer> known(final Message m)
    {
        final Map<Integer, Integer> known = new HashMap<>();
        for (final FieldDescriptor f : m.getDescriptorForType().getFields())
        {
            known.put(f.getNumber(), f.getLiteType().getWireType());
        }
        return known;
    }

    /**
     * One field that protobuf keeps as unknown in a message declaring {@code known}: a new number, or
     * a known one with another wire type.
     */
    static byte[] unknownField(final Random r, final Map<Integer, Integer> known, final int depth)
    {
        final int[] wireTypes = depth < 3 ? new int[] {0, 1, 2, 3, 5} : new int[] {0, 1, 2, 5};
        int number;
        int wire;
        do
        {
            number = r.nextInt(4) == 0 ? 1 + r.nextInt((1 << 29) - 1) : 1 + r.nextInt(80);
            wire = wireTypes[r.nextInt(wireTypes.length)];
        }
        while (known.containsKey(number) && known.get(number) == wire);
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        try
        {
            out.writeTag(number, wire);
            switch (wire)
            {
                case 0 -> out.writeUInt64NoTag(r.nextBoolean() ? r.nextLong() : r.nextInt(300));
                case 1 -> out.writeFixed64NoTag(r.nextLong());
                case 2 ->
                {
                    final byte[] payload = new byte[r.nextInt(12)];
                    r.nextBytes(payload);
                    out.writeByteArrayNoTag(payload);
                }
                case 3 ->
                {
                    final int n = r.nextInt(4);
                    for (int i = 0; i < n; i++)
                    {
                        out.writeRawBytes(unknownField(r, Map.of(), depth + 1));
                    }
                    out.writeTag(number, 4);
                }
                default -> out.writeFixed32NoTag(r.nextInt());
            }
            out.flush();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return bytes.toByteArray();
    }

    /** A length-delimited field. */
    static byte[] field(final int number, final byte[] payload)
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        try
        {
            out.writeTag(number, 2);
            out.writeByteArrayNoTag(payload);
            out.flush();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return bytes.toByteArray();
    }

    static byte[] varintField(final int number, final long value)
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        try
        {
            out.writeTag(number, 0);
            out.writeUInt64NoTag(value);
            out.flush();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return bytes.toByteArray();
    }

    /** Nested groups of field {@code number}, {@code depth} deep, around nothing. */
    static byte[] groups(final int number, final int depth)
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        try
        {
            for (int i = 0; i < depth; i++)
            {
                out.writeTag(number, 3);
            }
            for (int i = 0; i < depth; i++)
            {
                out.writeTag(number, 4);
            }
            out.flush();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return bytes.toByteArray();
    }

    static byte[] concat(final List<byte[]> parts)
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (final byte[] p : parts)
        {
            bytes.writeBytes(p);
        }
        return bytes.toByteArray();
    }

    static byte[] concat(final byte[]... parts)
    {
        return concat(List.of(parts));
    }

    /** A few random edits: bytes flipped, set, inserted, deleted, or the end cut off. */
    static byte[] mutate(final byte[] bytes, final Random r)
    {
        byte[] b = bytes.clone();
        final int edits = r.nextInt(4) == 0 ? 2 + r.nextInt(2) : 1;
        for (int e = 0; e < edits; e++)
        {
            switch (r.nextInt(5))
            {
                case 0 ->
                {
                    if (b.length > 0)
                    {
                        b[r.nextInt(b.length)] ^= (byte)(1 << r.nextInt(8));
                    }
                }
                case 1 ->
                {
                    if (b.length > 0)
                    {
                        final int[] edgy = {0, 0x7f, 0x80, 0xff, 0xc0, 0xed, 0xf4, 0x0c, 0x0b};
                        b[r.nextInt(b.length)] = (byte)edgy[r.nextInt(edgy.length)];
                    }
                }
                case 2 ->
                {
                    final int at = r.nextInt(b.length + 1);
                    final byte[] c = new byte[b.length + 1];
                    System.arraycopy(b, 0, c, 0, at);
                    c[at] = (byte)r.nextInt(256);
                    System.arraycopy(b, at, c, at + 1, b.length - at);
                    b = c;
                }
                case 3 ->
                {
                    if (b.length > 0)
                    {
                        final int at = r.nextInt(b.length);
                        final byte[] c = new byte[b.length - 1];
                        System.arraycopy(b, 0, c, 0, at);
                        System.arraycopy(b, at + 1, c, at, b.length - at - 1);
                        b = c;
                    }
                }
                default -> b = java.util.Arrays.copyOf(b, r.nextInt(b.length + 1));
            }
        }
        return b;
    }
}
