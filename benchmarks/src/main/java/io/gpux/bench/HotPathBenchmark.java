package io.gpux.bench;

import io.gpux.engine.command.Command;
import io.gpux.engine.command.CommandType;
import io.gpux.engine.event.Event;
import io.gpux.engine.event.EventType;
import io.gpux.core.journal.CommandCodec;
import io.gpux.core.journal.EventCodec;
import io.gpux.core.journal.Journal;
import io.gpux.gateway.codec.HotRequest;
import io.gpux.gateway.codec.RequestDecoder;
import io.gpux.gateway.codec.SymbolCache;
import io.gpux.gateway.directory.Directory;
import io.gpux.gateway.egress.EventFrames;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.PlaceBid;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The hot paths around the engine, one operation each, for their allocation per operation
 * ({@code -prof gc}) as much as their speed: a command and an event through the journal record
 * codecs, a record appended to a Chronicle Queue journal as its own document, an order decoded from
 * its wire frame into the engine command as the gateway does, and an account event encoded into a
 * frame as the egress does.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class HotPathBenchmark
{
    private final Command command = new Command();
    private final CommandCodec commandCodec = new CommandCodec();
    private final Event event = new Event();
    private final Event decoded = new Event();
    private final EventCodec eventCodec = new EventCodec();
    private final Directory directory = new Directory();
    private final RequestDecoder decoder = new RequestDecoder();
    private final SymbolCache symbols = new SymbolCache();
    private final Command staged = new Command();
    private EventFrames frames;
    private ByteBuf bidFrame;
    private ByteBuf out;
    private Path dir;
    private Journal journal;
    private int recordLength;

    @Setup
    public void setUp() throws IOException
    {
        command.reset(CommandType.BID, 1_764_480_000_000L);
        command.sequence = 42;
        command.accountId = 7;
        command.orderId = 123_456;
        command.marketId = 1;
        command.gpus = 8;
        command.price = 25_000;
        command.gang = true;

        event.clear();
        event.type = EventType.FILL;
        event.sequence = 99;
        event.timeMs = 1_764_480_000_000L;
        event.commandSequence = 42;
        event.orderId = 123_456;
        event.accountId = 7;
        event.counterOrderId = 9;
        event.leaseId = 17;
        event.gpus = 8;
        event.price = 25_000;

        directory.newMarket("H100-SXM-80G");
        final byte[] payload = Envelope.newBuilder().setRequestId(5).setPlaceBid(PlaceBid.newBuilder().setOrderId(123_456)
            .setMarket("H100-SXM-80G").setGpus(8).setPrice(25_000).setGang(true)).build().toByteArray();
        // what the frame decoder hands on: the payload in a direct buffer, as the epoll transport reads it
        bidFrame = Unpooled.directBuffer(payload.length).writeBytes(payload);
        frames = new EventFrames(directory);
        out = Unpooled.directBuffer(4096);
        dir = Files.createTempDirectory("gpux-hotpath");
        journal = Journal.open(dir);
        journal.takeOverWriting();
        recordLength = commandCodec.encode(command);
    }

    @TearDown
    public void tearDown() throws IOException
    {
        journal.close();
        out.release();
        bidFrame.release();
        try (Stream<Path> files = Files.walk(dir))
        {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** A command into its journal record (varint fields, CRC32C). */
    @Benchmark
    public int commandEncode()
    {
        return commandCodec.encode(command);
    }

    /** An event into its journal record and back, as the pipeline's publisher does. */
    @Benchmark
    public Event eventEncodeDecode()
    {
        final int length = eventCodec.encode(event);
        eventCodec.decode(length, decoded);
        return decoded;
    }

    /** One record appended to the command journal as its own document (a batch of one). */
    @Benchmark
    public void journalAppend()
    {
        journal.add(commandCodec.bytes(), recordLength);
        journal.endBatch();
    }

    /**
     * A PlaceBid frame into the engine's BID command, as the gateway does: the connection's
     * RequestDecoder reads it into its HotRequest, the market symbol resolves through the connection's
     * SymbolCache and the Directory, and the request fills the staged command.
     */
    @Benchmark
    public Command gatewayDecode() throws IOException
    {
        final HotRequest bid = (HotRequest)decoder.decode(bidFrame);
        String symbol = symbols.get(bid.bytes(), bid.marketOffset(), bid.marketLength());
        if (symbol == null)
        {
            symbol = new String(bid.bytes(), bid.marketOffset(), bid.marketLength(), StandardCharsets.UTF_8);
            symbols.put(bid.bytes(), bid.marketOffset(), bid.marketLength(), symbol);
        }
        staged.reset(CommandType.BID, 0);
        staged.accountId = 7;
        staged.marketId = directory.market(symbol).id();
        bid.toBid(staged);
        return staged;
    }

    /** A FILL event into an account event frame, as the egress does for each recipient. */
    @Benchmark
    public int gatewayEncode()
    {
        out.clear();
        frames.accountEvent(out, event, 7, 1000);
        return out.writerIndex();
    }
}
