package io.gpux.gateway.codec;

import io.gpux.engine.command.Command;
import io.gpux.engine.command.TimeInForce;
import io.gpux.proto.v1.Cancel;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.GpuTelemetry;
import io.gpux.proto.v1.MachineHeartbeat;
import io.gpux.proto.v1.PlaceAsk;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.Replace;

import java.util.List;

/**
 * One of the requests a trading session sends all the time (orders, cancels, replaces, mass
 * cancels, releases, machine heartbeats, heartbeats), as a reused flyweight: {@link RequestDecoder}
 * reads it straight from the frame's bytes, or {@link #readFrom} from an Envelope the generated parser
 * made. Its fields are the wire fields with protobuf's defaults; strings stay UTF-8 bytes in
 * {@link #bytes()} (see {@link SymbolCache}). Valid until the next request is read into it.
 */
public final class HotRequest
{
    /** What the request is: one of the body cases {@link #handles} answers true for. */
    public Envelope.BodyCase kind;
    public long requestId;

    public long orderId;
    public long machineId;
    public long leaseId;
    /** uint32 on the wire: negative here when it is above 2^31 - 1. */
    public int gpus;
    public long price;
    /** The wire value of the TimeInForce enum (unknown values kept, as protobuf does). */
    public int tif;
    public boolean postOnly;
    public boolean gang;
    public boolean noPreempt;
    public boolean reclaim;
    public long minReliabilityPpm;
    public long maxDurationMs;
    /** Replace: whether price / gpus were given (proto3 {@code optional}). */
    public boolean hasPrice;
    public boolean hasGpus;
    /**
     * MachineHeartbeat: the GPUs' telemetry, or null for none (the decoder leaves heartbeats with
     * telemetry to the generated parser).
     */
    public List<GpuTelemetry> telemetry;

    private byte[] bytes = new byte[0];
    private int marketOffset;
    private int marketLength;
    private int regionOffset;
    private int regionLength;

    /** Whether requests of this body case are read into a HotRequest. */
    public static boolean handles(final Envelope.BodyCase kind)
    {
        return switch (kind)
        {
            case HEARTBEAT, PLACE_BID, PLACE_ASK, CANCEL, REPLACE, MASS_CANCEL, RELEASE, MACHINE_HEARTBEAT -> true;
            default -> false;
        };
    }

    /** Starts a request of this kind with every field at its default; strings are in {@code text}. */
    void start(final Envelope.BodyCase kind, final byte[] text)
    {
        this.kind = kind;
        bytes = text;
        orderId = 0;
        machineId = 0;
        leaseId = 0;
        gpus = 0;
        price = 0;
        tif = 0;
        postOnly = false;
        gang = false;
        noPreempt = false;
        reclaim = false;
        minReliabilityPpm = 0;
        maxDurationMs = 0;
        hasPrice = false;
        hasGpus = false;
        telemetry = null;
        marketOffset = 0;
        marketLength = 0;
        regionOffset = 0;
        regionLength = 0;
    }

    void market(final int offset, final int length)
    {
        marketOffset = offset;
        marketLength = length;
    }

    void region(final int offset, final int length)
    {
        regionOffset = offset;
        regionLength = length;
    }

    /** The bytes the market and region are in. */
    public byte[] bytes()
    {
        return bytes;
    }

    /** Where the market symbol's UTF-8 is in {@link #bytes()} (PlaceBid, MassCancel). */
    public int marketOffset()
    {
        return marketOffset;
    }

    public int marketLength()
    {
        return marketLength;
    }

    /** The market symbol as a new String: for messages, not for the hot path (see {@link SymbolCache}). */
    public String marketString()
    {
        return new String(bytes, marketOffset, marketLength, java.nio.charset.StandardCharsets.UTF_8);
    }

    /** Where the region's UTF-8 is in {@link #bytes()} (PlaceBid). */
    int regionOffset()
    {
        return regionOffset;
    }

    int regionLength()
    {
        return regionLength;
    }

    /** The region's id as {@code Directory.nameId} gives it for the region's name, from its UTF-8 bytes. */
    public long regionId()
    {
        return nameId(bytes, regionOffset, regionLength);
    }

    /**
     * The id {@code Directory.nameId(name)} gives a name, from the name's UTF-8 bytes: 63 bits of
     * FNV-1a, 0 for none.
     */
    public static long nameId(final byte[] utf8, final int offset, final int length)
    {
        if (length == 0)
        {
            return 0;
        }
        long h = 0xcbf29ce484222325L;
        for (int i = offset; i < offset + length; i++)
        {
            h ^= utf8[i] & 0xff;
            h *= 0x100000001b3L;
        }
        h &= Long.MAX_VALUE;
        return h == 0 ? 1 : h;
    }

    // ---- into the engine's command (the gateway has staged the command's type and account, and checked the request)

    /** A PlaceBid's fields but the market into a staged BID. */
    public void toBid(final Command c)
    {
        c.orderId = orderId;
        c.gpus = gpus;
        c.price = price;
        c.tif = tif(tif);
        c.postOnly = postOnly;
        c.gang = gang;
        c.noPreempt = noPreempt;
        c.minReliabilityPpb = minReliabilityPpm == 0 ? Command.ABSENT : minReliabilityPpm * 1000;
        c.regionId = regionId();
        c.maxDurationMs = maxDurationMs == 0 ? Command.ABSENT : maxDurationMs;
    }

    /** A PlaceAsk into a staged ASK. */
    public void toAsk(final Command c)
    {
        c.orderId = orderId;
        c.machineId = machineId;
        c.gpus = gpus;
        c.price = price;
        c.tif = tif(tif);
        c.postOnly = postOnly;
    }

    /** A Cancel into a staged CANCEL. */
    public void toCancel(final Command c)
    {
        c.orderId = orderId;
        c.reclaim = reclaim;
    }

    /** A Replace into a staged REPLACE: only what it gives. */
    public void toReplace(final Command c)
    {
        c.orderId = orderId;
        if (hasPrice)
        {
            c.price = price;
        }
        if (hasGpus)
        {
            c.gpus = gpus;
        }
    }

    /** Whether a wire TimeInForce value is one the protocol defines (an undefined one is refused, not read as GTC). */
    public static boolean isTimeInForce(final int value)
    {
        return value >= 0 && value <= 2;
    }

    /** The refusal's text for a TimeInForce value the protocol does not define. */
    public static String timeInForceProblem(final int value)
    {
        return "tif " + value + " is not a TimeInForce (GTC 0, IOC 1, FOK 2)";
    }

    private static TimeInForce tif(final int value)
    {
        return switch (value)
        {
            case 1 -> TimeInForce.IOC;
            case 2 -> TimeInForce.FOK;
            default -> TimeInForce.GTC;
        };
    }

    // ---- from the generated classes

    /**
     * Reads a request the generated parser made (one {@link RequestDecoder} left to it, or any
     * Envelope of a body case {@link #handles} takes). Allocates: not the hot path.
     */
    public HotRequest readFrom(final Envelope env)
    {
        if (!handles(env.getBodyCase()))
        {
            throw new IllegalArgumentException("not a hot request: " + env.getBodyCase());
        }
        requestId = env.getRequestId();
        switch (env.getBodyCase())
        {
            case PLACE_BID ->
            {
                final PlaceBid b = env.getPlaceBid();
                final byte[] market = b.getMarketBytes().toByteArray();
                final byte[] region = b.getRegionBytes().toByteArray();
                final byte[] text = new byte[market.length + region.length];
                System.arraycopy(market, 0, text, 0, market.length);
                System.arraycopy(region, 0, text, market.length, region.length);
                start(env.getBodyCase(), text);
                market(0, market.length);
                region(market.length, region.length);
                orderId = b.getOrderId();
                gpus = b.getGpus();
                price = b.getPrice();
                tif = b.getTifValue();
                postOnly = b.getPostOnly();
                gang = b.getGang();
                noPreempt = b.getNoPreempt();
                minReliabilityPpm = b.getMinReliabilityPpm();
                maxDurationMs = b.getMaxDurationMs();
            }
            case PLACE_ASK ->
            {
                final PlaceAsk a = env.getPlaceAsk();
                start(env.getBodyCase(), bytes);
                orderId = a.getOrderId();
                machineId = a.getMachineId();
                gpus = a.getGpus();
                price = a.getPrice();
                tif = a.getTifValue();
                postOnly = a.getPostOnly();
            }
            case CANCEL ->
            {
                final Cancel c = env.getCancel();
                start(env.getBodyCase(), bytes);
                orderId = c.getOrderId();
                reclaim = c.getReclaim();
            }
            case REPLACE ->
            {
                final Replace r = env.getReplace();
                start(env.getBodyCase(), bytes);
                orderId = r.getOrderId();
                hasPrice = r.hasPrice();
                price = r.getPrice();
                hasGpus = r.hasGpus();
                gpus = r.getGpus();
            }
            case MASS_CANCEL ->
            {
                final byte[] market = env.getMassCancel().getMarketBytes().toByteArray();
                start(env.getBodyCase(), market);
                market(0, market.length);
            }
            case RELEASE ->
            {
                start(env.getBodyCase(), bytes);
                leaseId = env.getRelease().getLeaseId();
            }
            case MACHINE_HEARTBEAT ->
            {
                final MachineHeartbeat h = env.getMachineHeartbeat();
                start(env.getBodyCase(), bytes);
                machineId = h.getMachineId();
                telemetry = h.getGpusCount() > 0 ? h.getGpusList() : null;
            }
            default -> start(env.getBodyCase(), bytes); // HEARTBEAT: nothing the gateway reads
        }
        return this;
    }

    @Override
    public String toString()
    {
        return kind + "{request " + requestId + ", order " + orderId + ", market '" + marketString() + "', machine "
            + machineId + ", lease " + leaseId + ", gpus " + gpus + ", price " + price + ", tif " + tif + ", postOnly "
            + postOnly + ", gang " + gang + ", noPreempt " + noPreempt + ", reclaim " + reclaim + ", minReliabilityPpm " + minReliabilityPpm
            + ", region " + regionId() + ", maxDurationMs " + maxDurationMs + ", hasPrice " + hasPrice + ", hasGpus "
            + hasGpus + ", telemetry " + telemetry + "}";
    }
}
