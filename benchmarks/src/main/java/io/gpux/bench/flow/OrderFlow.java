package io.gpux.bench.flow;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * A plain order flow on one instrument: the common ground of gpux's order book and exchange-core's, so that
 * both can be benchmarked on exactly the same stream. Four commands, each naming an order by a globally unique
 * id and its user (1..{@link #users}):
 * <ul>
 * <li>{@code PLACE_*}: a new limit order, bid or ask, GTC (the rest rests) or IOC (the rest is dropped);</li>
 * <li>{@link #CANCEL}: remove a resting order;</li>
 * <li>{@link #MOVE}: a resting order to a new price ({@link #price}); it loses its time priority, may trade;</li>
 * <li>{@link #REDUCE}: a resting order smaller by {@link #size} (keeping its priority; to nothing: removed).</li>
 * </ul>
 * Semantics are those of a plain price-time book (exchange-core's): an order filled completely is gone, a
 * trade is at the resting order's price. A flow never references an order that is not resting, never lets
 * a user trade with himself (gpux passes over its own orders, exchange-core does not) and ends with an empty
 * book, so it can be replayed again and again; {@link OrderFlowReference} checks all of this and gives the
 * expected trades per pass ({@link #trades}, {@link #volume}) that each side checks its own replay against.
 *
 * <p>File layout ({@link DataOutputStream}, big-endian), about 33 bytes a command:
 * <pre>
 *   "GPUXFLOW" (8 bytes) | version int = 1
 *   name UTF | notes UTF
 *   users int | commands int | passShiftMs long | maxPrice long | trades long | volume long
 *   commands x { type byte | uid int | orderId long | price long | size int | timeMs long }
 * </pre>
 * exchange-core's side (module {@code benchmarks-exchange-core}) reads the file with its own copy of
 * {@link #read}: the two sides share no classpath (exchange-core 0.5.3 needs an older Chronicle).
 */
public final class OrderFlow
{
    public static final byte PLACE_GTC_BID = 0;
    public static final byte PLACE_GTC_ASK = 1;
    public static final byte PLACE_IOC_BID = 2;
    public static final byte PLACE_IOC_ASK = 3;
    public static final byte CANCEL = 4;
    public static final byte MOVE = 5;
    public static final byte REDUCE = 6;

    private static final long MAGIC = 0x4750_5558_464C_4F57L; // "GPUXFLOW"
    private static final int VERSION = 1;

    public final String name;
    public final String notes;
    public final int users;
    /** How far in time (ms) one repetition of the flow moves on from the last. */
    public final long passShiftMs;
    /** The highest price any order of the flow reaches (a bid's reserve price in exchange-core). */
    public final long maxPrice;
    /** Trades (one per resting order hit) and traded quantity in one pass, from the reference book. */
    public final long trades;
    public final long volume;

    public final byte[] type;
    public final int[] uid;
    public final long[] orderId;
    public final long[] price;
    public final int[] size;
    public final long[] timeMs;

    OrderFlow(
        final String name, final String notes, final int users, final long passShiftMs, final long maxPrice,
        final long trades, final long volume, final byte[] type, final int[] uid, final long[] orderId,
        final long[] price, final int[] size, final long[] timeMs)
    {
        this.name = name;
        this.notes = notes;
        this.users = users;
        this.passShiftMs = passShiftMs;
        this.maxPrice = maxPrice;
        this.trades = trades;
        this.volume = volume;
        this.type = type;
        this.uid = uid;
        this.orderId = orderId;
        this.price = price;
        this.size = size;
        this.timeMs = timeMs;
    }

    public int size()
    {
        return type.length;
    }

    public static boolean isPlace(final byte type)
    {
        return type <= PLACE_IOC_ASK;
    }

    public static boolean isBid(final byte type)
    {
        return type == PLACE_GTC_BID || type == PLACE_IOC_BID;
    }

    public static boolean isIoc(final byte type)
    {
        return type == PLACE_IOC_BID || type == PLACE_IOC_ASK;
    }

    /** Commands by kind, e.g. {@code GTC 48.1%, IOC 5.0%, CANCEL 44.0%, MOVE 0.0%, REDUCE 2.9%}. */
    public String mix()
    {
        final int[] counts = new int[REDUCE + 1];
        for (final byte t : type)
        {
            counts[t]++;
        }
        final double n = size() / 100.0;
        return String.format("GTC %.1f%%, IOC %.1f%%, CANCEL %.1f%%, MOVE %.1f%%, REDUCE %.1f%%",
            (counts[PLACE_GTC_BID] + counts[PLACE_GTC_ASK]) / n, (counts[PLACE_IOC_BID] + counts[PLACE_IOC_ASK]) / n,
            counts[CANCEL] / n, counts[MOVE] / n, counts[REDUCE] / n);
    }

    public String summary()
    {
        return String.format("%s: %,d commands/pass, %d users, %s; %,d trades (%,d units) per pass; %s", name, size(), users,
            mix(), trades, volume, notes);
    }

    public void write(final Path file) throws IOException
    {
        Files.createDirectories(file.toAbsolutePath().getParent());
        final Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 16)))
        {
            out.writeLong(MAGIC);
            out.writeInt(VERSION);
            out.writeUTF(name);
            out.writeUTF(notes);
            out.writeInt(users);
            out.writeInt(size());
            out.writeLong(passShiftMs);
            out.writeLong(maxPrice);
            out.writeLong(trades);
            out.writeLong(volume);
            for (int i = 0; i < size(); i++)
            {
                out.writeByte(type[i]);
                out.writeInt(uid[i]);
                out.writeLong(orderId[i]);
                out.writeLong(price[i]);
                out.writeInt(size[i]);
                out.writeLong(timeMs[i]);
            }
        }
        Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    public static OrderFlow read(final Path file) throws IOException
    {
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 16)))
        {
            if (in.readLong() != MAGIC)
            {
                throw new IOException(file + ": not an order flow file");
            }
            final int version = in.readInt();
            if (version != VERSION)
            {
                throw new IOException(file + ": order flow version " + version + ", expected " + VERSION);
            }
            final String name = in.readUTF();
            final String notes = in.readUTF();
            final int users = in.readInt();
            final int n = in.readInt();
            final long passShiftMs = in.readLong();
            final long maxPrice = in.readLong();
            final long trades = in.readLong();
            final long volume = in.readLong();
            final byte[] type = new byte[n];
            final int[] uid = new int[n];
            final long[] orderId = new long[n];
            final long[] price = new long[n];
            final int[] size = new int[n];
            final long[] timeMs = new long[n];
            for (int i = 0; i < n; i++)
            {
                type[i] = in.readByte();
                uid[i] = in.readInt();
                orderId[i] = in.readLong();
                price[i] = in.readLong();
                size[i] = in.readInt();
                timeMs[i] = in.readLong();
            }
            return new OrderFlow(name, notes, users, passShiftMs, maxPrice, trades, volume, type, uid, orderId, price, size,
                timeMs);
        }
    }

    /** SHA-256 of a file, in hex: recorded with the results, so that both sides' use of one file shows. */
    public static String sha256(final Path file) throws IOException
    {
        try
        {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
        }
        catch (final NoSuchAlgorithmException e)
        {
            throw new IllegalStateException(e);
        }
    }

    /** Collects commands; {@link #build} checks the flow on the reference book and records what a pass trades. */
    public static final class Builder
    {
        private final String name;
        private final int users;
        private int n;
        private byte[] type = new byte[1 << 12];
        private int[] uid = new int[1 << 12];
        private long[] orderId = new long[1 << 12];
        private long[] price = new long[1 << 12];
        private int[] size = new int[1 << 12];
        private long[] timeMs = new long[1 << 12];
        private long maxPrice;
        private long lastTime = Long.MIN_VALUE;

        public Builder(final String name, final int users)
        {
            this.name = name;
            this.users = users;
        }

        public int size()
        {
            return n;
        }

        public Builder place(final long t, final int user, final boolean bid, final boolean ioc, final long id,
            final long px, final int qty)
        {
            final byte ty = ioc ? (bid ? PLACE_IOC_BID : PLACE_IOC_ASK) : (bid ? PLACE_GTC_BID : PLACE_GTC_ASK);
            return add(ty, t, user, id, px, qty);
        }

        public Builder cancel(final long t, final int user, final long id)
        {
            return add(CANCEL, t, user, id, 0, 0);
        }

        public Builder move(final long t, final int user, final long id, final long newPrice)
        {
            return add(MOVE, t, user, id, newPrice, 0);
        }

        public Builder reduce(final long t, final int user, final long id, final int by)
        {
            return add(REDUCE, t, user, id, 0, by);
        }

        private Builder add(final byte ty, final long t, final int user, final long id, final long px, final int qty)
        {
            if (user < 1 || user > users)
            {
                throw new IllegalArgumentException("user " + user + " outside 1.." + users);
            }
            if (t < lastTime)
            {
                throw new IllegalArgumentException("time goes back: " + t + " < " + lastTime);
            }
            if (n == type.length)
            {
                final int cap = n * 2;
                type = Arrays.copyOf(type, cap);
                uid = Arrays.copyOf(uid, cap);
                orderId = Arrays.copyOf(orderId, cap);
                price = Arrays.copyOf(price, cap);
                size = Arrays.copyOf(size, cap);
                timeMs = Arrays.copyOf(timeMs, cap);
            }
            lastTime = t;
            type[n] = ty;
            uid[n] = user;
            orderId[n] = id;
            price[n] = px;
            size[n] = qty;
            timeMs[n] = t;
            maxPrice = Math.max(maxPrice, px);
            n++;
            return this;
        }

        /**
         * Replays the flow on the {@link OrderFlowReference} book: it must reference only resting orders, never
         * let a user trade with himself and end with an empty book.
         *
         * @throws IllegalStateException if it does not.
         */
        public OrderFlow build(final long passShiftMs, final String notes)
        {
            if (n == 0 || timeMs[n - 1] - timeMs[0] >= passShiftMs)
            {
                throw new IllegalStateException(name + ": a pass must take less time than the shift " + passShiftMs);
            }
            final OrderFlow flow = new OrderFlow(name, notes, users, passShiftMs, maxPrice, 0, 0, Arrays.copyOf(type, n),
                Arrays.copyOf(uid, n), Arrays.copyOf(orderId, n), Arrays.copyOf(price, n), Arrays.copyOf(size, n),
                Arrays.copyOf(timeMs, n));
            final OrderFlowReference ref = OrderFlowReference.replay(flow);
            return new OrderFlow(name, notes, users, passShiftMs, maxPrice, ref.trades(), ref.volume(), flow.type, flow.uid,
                flow.orderId, flow.price, flow.size, flow.timeMs);
        }
    }
}
