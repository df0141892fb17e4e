package io.gpux.bench.xc;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * An order flow file written by gpux's side ({@code io.gpux.bench.flow.OrderFlow} in module benchmarks, whose
 * Javadoc defines the commands and the layout): a read-only copy, since this module shares no classpath with
 * gpux. Both sides replay the same file; each checks its trades per pass against {@link #trades} and
 * {@link #volume}, which gpux's reference book recorded.
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
    /** Where gpux's side writes the flows, relative to the project root. */
    static final String DEFAULT_DIR = "benchmarks/target/flows";

    public final String name;
    public final String notes;
    public final int users;
    public final long passShiftMs;
    public final long maxPrice;
    public final long trades;
    public final long volume;

    public final byte[] type;
    public final int[] uid;
    public final long[] orderId;
    public final long[] price;
    public final int[] size;
    public final long[] timeMs;

    private OrderFlow(
        final String name, final String notes, final int users, final long passShiftMs, final long maxPrice,
        final long trades, final long volume, final int n)
    {
        this.name = name;
        this.notes = notes;
        this.users = users;
        this.passShiftMs = passShiftMs;
        this.maxPrice = maxPrice;
        this.trades = trades;
        this.volume = volume;
        type = new byte[n];
        uid = new int[n];
        orderId = new long[n];
        price = new long[n];
        size = new int[n];
        timeMs = new long[n];
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

    /**
     * The flow {@code NAME} from {@code dir/NAME.flow}; dir empty: {@value #DEFAULT_DIR} under the project root
     * (the first directory up from the working directory with a benchmarks/pom.xml).
     */
    public static OrderFlow load(final String name, final String dir) throws IOException
    {
        final Path file = file(name, dir);
        if (!Files.isRegularFile(file))
        {
            throw new IOException("no order flow file " + file + ": write it with gpux's side first (./gpux bench does; " +
                "by hand: java -cp benchmarks/target/benchmarks.jar io.gpux.bench.OrderFlows)");
        }
        return read(file);
    }

    public static Path file(final String name, final String dir)
    {
        if (dir != null && !dir.isEmpty())
        {
            return Path.of(dir).resolve(name + ".flow");
        }
        for (File d = new File("").getAbsoluteFile(); d != null; d = d.getParentFile())
        {
            if (new File(d, "benchmarks/pom.xml").isFile())
            {
                return d.toPath().resolve(DEFAULT_DIR).resolve(name + ".flow");
            }
        }
        return Path.of("target/flows", name + ".flow").toAbsolutePath();
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
            final OrderFlow f = new OrderFlow(name, notes, users, in.readLong(), in.readLong(), in.readLong(), in.readLong(), n);
            for (int i = 0; i < n; i++)
            {
                f.type[i] = in.readByte();
                f.uid[i] = in.readInt();
                f.orderId[i] = in.readLong();
                f.price[i] = in.readLong();
                f.size[i] = in.readInt();
                f.timeMs[i] = in.readLong();
            }
            return f;
        }
    }

    public String summary()
    {
        return String.format("%s: %,d commands/pass, %d users; %,d trades (%,d units) per pass", name, size(), users, trades,
            volume);
    }
}
