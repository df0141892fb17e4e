package io.gpux.gateway;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.DynamicMessage;
import io.gpux.proto.v1.Envelope;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Random and mutated wire input for fuzzing the gateway: Envelopes of any body with random field
 * values (biased to edge values and to names the exchange knows, so that some get past the lookups),
 * framing, and byte-level mutations. Everything comes from the Random given, so a seed reproduces it.
 */
final class RandomFrames
{
    static final List<String> NAMES = List.of("H100-SXM-80G", "A100-80G", "L40S-48G", "RTX4090-24G", "admin", "fuzzer",
        "eu", "us", "", "x", "\u0000", "\u00e9\u00e9", "../etc/passwd", "a".repeat(65), "A".repeat(300));
    static final long[] EDGE_LONGS = {0, 1, -1, 2, 7, 100, 1_000_000, 1_000_001, Integer.MAX_VALUE, Integer.MIN_VALUE,
        0xFFFF_FFFFL, 1L << 32, Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE - 1, 3_600_000, 30_000};

    /**
     * Fields whose extreme values once stopped the exchange core (money arithmetic overflowing a long;
     * fixed by the engine's limits on amounts, see {@link ExtremeValuesTest}). They get extreme values
     * like every other field; {@code -Dgpux.fuzz.noExtremes=true} keeps them within 2^40.
     */
    static final Set<String> ENGINE_OVERFLOW_FIELDS = Set.of("gpux.v1.PlaceBid.price", "gpux.v1.PlaceAsk.price",
        "gpux.v1.Replace.price", "gpux.v1.QuoteRequest.price", "gpux.v1.Deposit.amount", "gpux.v1.CreateMarket.prepay_ms",
        "gpux.v1.CreateMarket.max_gpus_per_order", "gpux.v1.CreateMarket.tick");
    private static final boolean EXTREMES = !Boolean.getBoolean("gpux.fuzz.noExtremes");

    private final Random random;

    RandomFrames(final Random random)
    {
        this.random = random;
    }

    Random random()
    {
        return random;
    }

    long anyLong()
    {
        return switch (random.nextInt(4))
        {
            case 0 -> EDGE_LONGS[random.nextInt(EDGE_LONGS.length)];
            case 1 -> random.nextInt(64);
            case 2 -> random.nextInt(100_000) - 1_000;
            default -> random.nextLong();
        };
    }

    String anyString()
    {
        if (random.nextInt(3) > 0)
        {
            return NAMES.get(random.nextInt(NAMES.size()));
        }
        final StringBuilder b = new StringBuilder();
        final int n = random.nextInt(40);
        for (int i = 0; i < n; i++)
        {
            b.append((char)(random.nextInt(4) == 0 ? random.nextInt(0x3000) : 32 + random.nextInt(95)));
        }
        return b.toString();
    }

    byte[] bytes(final int max)
    {
        final byte[] b = new byte[random.nextInt(max + 1)];
        random.nextBytes(b);
        return b;
    }

    /** An Envelope with a random body (none of {@code excluded}) whose fields are random; serialized. */
    byte[] envelope(final Set<String> excluded)
    {
        final Descriptor envelope = Envelope.getDescriptor();
        final DynamicMessage.Builder b = DynamicMessage.newBuilder(envelope);
        if (random.nextBoolean())
        {
            b.setField(envelope.findFieldByName("request_id"), anyLong());
        }
        final List<FieldDescriptor> bodies = envelope.getOneofs().get(0).getFields();
        if (random.nextInt(30) > 0)
        {
            FieldDescriptor body;
            do
            {
                body = bodies.get(random.nextInt(bodies.size()));
            }
            while (excluded.contains(body.getName()));
            b.setField(body, message(body.getMessageType(), 0));
        }
        return b.build().toByteArray();
    }

    private DynamicMessage message(final Descriptor type, final int depth)
    {
        final DynamicMessage.Builder b = DynamicMessage.newBuilder(type);
        for (final FieldDescriptor f : type.getFields())
        {
            if (f.getRealContainingOneof() != null || random.nextInt(4) == 0)
            {
                continue;
            }
            if (f.isRepeated())
            {
                final int n = random.nextInt(depth > 1 ? 1 : 4);
                for (int i = 0; i < n; i++)
                {
                    b.addRepeatedField(f, value(f, depth));
                }
            }
            else
            {
                b.setField(f, value(f, depth));
            }
        }
        return b.build();
    }

    private Object value(final FieldDescriptor f, final int depth)
    {
        return switch (f.getJavaType())
        {
            case INT -> (int)anyLong();
            case LONG -> !EXTREMES && ENGINE_OVERFLOW_FIELDS.contains(f.getFullName()) ? anyLong() % (1L << 40) : anyLong();
            case BOOLEAN -> random.nextBoolean();
            case FLOAT -> random.nextFloat();
            case DOUBLE -> random.nextDouble();
            case STRING -> anyString();
            case BYTE_STRING -> ByteString.copyFrom(bytes(random.nextBoolean() ? 16 : 80));
            case ENUM -> enumValue(f);
            case MESSAGE -> message(f.getMessageType(), depth + 1);
        };
    }

    private EnumValueDescriptor enumValue(final FieldDescriptor f)
    {
        if (random.nextInt(8) == 0)
        {
            return f.getEnumType().findValueByNumberCreatingIfUnknown(random.nextInt(1000) - 10);
        }
        final List<EnumValueDescriptor> values = f.getEnumType().getValues();
        return values.get(random.nextInt(values.size()));
    }

    static byte[] frame(final byte[] payload)
    {
        return ByteBuffer.allocate(4 + payload.length).putInt(payload.length).put(payload).array();
    }

    static byte[] frame(final Envelope e)
    {
        return frame(e.toByteArray());
    }

    static byte[] concat(final byte[]... parts)
    {
        int n = 0;
        for (final byte[] p : parts)
        {
            n += p.length;
        }
        final ByteBuffer b = ByteBuffer.allocate(n);
        for (final byte[] p : parts)
        {
            b.put(p);
        }
        return b.array();
    }

    /** A length prefix the server must refuse before reading on (its maximum is 65536 bytes with the prefix). */
    byte[] hugeLengthPrefix()
    {
        final long[] lengths = {0x7fff_ffffL, 0xffff_ffffL, 0x8000_0000L, 65_533, 65_536, 1 << 20, 0x0100_0000L};
        final long length = random.nextInt(4) == 0 ? 65_533 + (random.nextLong() & 0x7fff_ffffL) % 0xffff_0000L
            : lengths[random.nextInt(lengths.length)];
        return ByteBuffer.allocate(4).putInt((int)length).array();
    }

    /** Flips, inserts, deletes, duplicates or overwrites a few bytes. */
    byte[] mutate(final byte[] in)
    {
        byte[] b = in.clone();
        final int edits = 1 + random.nextInt(4);
        for (int e = 0; e < edits; e++)
        {
            final int at = b.length == 0 ? 0 : random.nextInt(b.length);
            switch (random.nextInt(5))
            {
                case 0 ->
                {
                    if (b.length > 0)
                    {
                        b[at] ^= (byte)(1 << random.nextInt(8));
                    }
                }
                case 1 ->
                {
                    if (b.length > 0)
                    {
                        b[at] = (byte)random.nextInt(256);
                    }
                }
                case 2 ->
                {
                    final byte[] c = new byte[b.length + 1];
                    System.arraycopy(b, 0, c, 0, at);
                    c[at] = (byte)random.nextInt(256);
                    System.arraycopy(b, at, c, at + 1, b.length - at);
                    b = c;
                }
                case 3 ->
                {
                    if (b.length > 0)
                    {
                        final byte[] c = new byte[b.length - 1];
                        System.arraycopy(b, 0, c, 0, at);
                        System.arraycopy(b, at + 1, c, at, b.length - at - 1);
                        b = c;
                    }
                }
                default ->
                {
                    final int n = Math.min(b.length - at, 1 + random.nextInt(8));
                    final byte[] c = new byte[b.length + n];
                    System.arraycopy(b, 0, c, 0, at + n);
                    System.arraycopy(b, at, c, at + n, b.length - at);
                    b = c;
                }
            }
        }
        return b;
    }

    static String hex(final byte[] b, final int max)
    {
        final StringBuilder s = new StringBuilder();
        for (int i = 0; i < Math.min(b.length, max); i++)
        {
            s.append(String.format("%02x", b[i]));
        }
        return b.length > max ? s + "...(" + b.length + " bytes)" : s.toString();
    }

    static byte[] utf8(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
