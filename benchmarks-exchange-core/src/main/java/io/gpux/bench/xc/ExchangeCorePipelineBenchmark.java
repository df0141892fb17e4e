package io.gpux.bench.xc;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import exchange.core2.core.ExchangeApi;
import exchange.core2.core.ExchangeCore;
import exchange.core2.core.common.CoreWaitStrategy;
import exchange.core2.core.common.MatcherEventType;
import exchange.core2.core.common.MatcherTradeEvent;
import exchange.core2.core.common.OrderAction;
import exchange.core2.core.common.OrderType;
import exchange.core2.core.common.api.ApiAddUser;
import exchange.core2.core.common.api.ApiAdjustUserBalance;
import exchange.core2.core.common.api.ApiCancelOrder;
import exchange.core2.core.common.api.ApiCommand;
import exchange.core2.core.common.api.ApiMoveOrder;
import exchange.core2.core.common.api.ApiPlaceOrder;
import exchange.core2.core.common.api.ApiReduceOrder;
import exchange.core2.core.common.api.binary.BatchAddSymbolsCommand;
import exchange.core2.core.common.cmd.CommandResultCode;
import exchange.core2.core.common.cmd.OrderCommand;
import exchange.core2.core.common.cmd.OrderCommandType;
import exchange.core2.core.common.config.ExchangeConfiguration;
import exchange.core2.core.common.config.InitialStateConfiguration;
import exchange.core2.core.common.config.PerformanceConfiguration;
import exchange.core2.core.common.config.SerializationConfiguration;
import exchange.core2.core.orderbook.OrderBookDirectImpl;
import exchange.core2.core.processors.journaling.DiskSerializationProcessor;
import exchange.core2.core.processors.journaling.DiskSerializationProcessorConfiguration;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * exchange-core's side of the pipeline comparison: {@code ExchangeCore} (grouping, risk hold R1, matching engine,
 * risk release R2, results, and with {@code --journal} the disk journal) on an order flow file that gpux's side
 * wrote, measured as gpux's {@code OrderFlowPipelineBenchmark} measures gpux's pipeline:
 * <ul>
 * <li>throughput ({@code --rate 0}): one producer submits as fast as the ring takes it; flow commands per second
 *     from the first measured submit until the results handler has seen the last command;</li>
 * <li>latency ({@code --rate N}): open loop at N flow commands per second; each command's latency is from when it
 *     was due (carried in the command's timestamp) to the results handler (after the matching engine and, with
 *     {@code --journal}, the journal), so a stall counts against every command behind it; warm-up excluded;
 *     HdrHistogram, 3 digits.</li>
 * </ul>
 * Settings for 2 cores: exchange-core's {@code baseBuilder} (ring 16k, 1 matching engine, 1 risk engine, groups of
 * 256) with {@code OrderBookDirectImpl}, the YIELDING wait strategy and plain threads (no CPU pinning). Its journal
 * is a file opened {@code "rwd"}: every write (one per batch) waits for the device, as gpux's {@code SYNC} does.
 * Every user gets balances enough for the whole run; the flow's trades are checked. With {@code --json FILE}, also writes its figures there.
 */
@CommandLine.Command(name = "bench-xc-pipeline", mixinStandardHelpOptions = true)
public final class ExchangeCorePipelineBenchmark implements Callable<Integer>
{
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long BALANCE = 100_000_000_000_000_000L;

    @Option(names = "--json", description = "also write the figures to this JSON file (what ./gpux bench reads)")
    Path json;

    @Option(names = "--flow", description = "lobster or synthetic (default ${DEFAULT-VALUE})")
    String flow = "synthetic";

    @Option(names = "--flow-dir", description = "directory of the flow files (default: benchmarks/target/flows)")
    String flowDir = "";

    @Option(names = "--journal", arity = "1", description = "exchange-core's disk journal: on or off (default ${DEFAULT-VALUE})")
    String journalOption = "on";

    private boolean journal;

    @Option(names = "--messages", description = "measured flow commands (default ${DEFAULT-VALUE})")
    int messages = 2_000_000;

    @Option(names = "--warmup", description = "warm-up flow commands, not measured (default ${DEFAULT-VALUE})")
    int warmup = 500_000;

    @Option(names = "--rate", description = "offered flow commands/s for the latency run; 0 = throughput run")
    long rate;

    @Option(names = "--wait", description = "exchange-core's wait strategy: YIELDING, BUSY_SPIN, BLOCKING (default ${DEFAULT-VALUE})")
    CoreWaitStrategy wait = CoreWaitStrategy.YIELDING;

    @Option(names = "--dir", description = "journal directory (default: a temporary one, deleted after)")
    Path dir;

    private final AtomicLong processed = new AtomicLong();
    private final Histogram histogram = new Histogram(3_600_000_000L, 3);
    private long trades;
    private long failed;
    private volatile String firstFailure;

    /**
     * The figures for {@code ./gpux bench}, in the layout of gpux's {@code ResultFile} (this module has no gpux class
     * on its classpath): latency percentiles in microseconds with their count.
     */
    private void writeFigures(final ObjectNode figures) throws IOException
    {
        if (json != null)
        {
            JSON.writerWithDefaultPrettyPrinter().writeValue(json.toFile(), figures);
        }
    }

    public static void main(final String[] args)
    {
        // exchange-core logs every start and stop at INFO: keep its warnings and errors only
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null)
        {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }
        System.exit(new CommandLine(new ExchangeCorePipelineBenchmark()).setCaseInsensitiveEnumValuesAllowed(true).execute(args));
    }

    @Override
    public Integer call() throws Exception
    {
        final Path data = dir != null ? dir : Files.createTempDirectory("xc-pipeline-bench");
        try
        {
            return run(data);
        }
        finally
        {
            if (dir == null)
            {
                try (Stream<Path> files = Files.walk(data))
                {
                    files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        }
    }

    /** On the results handler's thread: every flow command, once the matching engine (and journal) are done. */
    private void onResult(final OrderCommand cmd, final long seq)
    {
        final OrderCommandType type = cmd.command;
        if (type != OrderCommandType.PLACE_ORDER && type != OrderCommandType.CANCEL_ORDER &&
            type != OrderCommandType.MOVE_ORDER && type != OrderCommandType.REDUCE_ORDER)
        {
            return;
        }
        if (cmd.timestamp > 0)
        {
            histogram.recordValue(Math.max(0, System.nanoTime() - cmd.timestamp));
        }
        if (cmd.resultCode != CommandResultCode.SUCCESS && failed++ == 0)
        {
            firstFailure = cmd.resultCode + " of " + cmd;
        }
        for (MatcherTradeEvent e = cmd.matcherEvent; e != null; e = e.nextEvent)
        {
            if (e.eventType == MatcherEventType.TRADE)
            {
                trades++;
            }
        }
        processed.lazySet(processed.get() + 1);
    }

    private int run(final Path data) throws Exception
    {
        if (!journalOption.equals("on") && !journalOption.equals("off"))
        {
            throw new CommandLine.ParameterException(new CommandLine(this), "--journal on or off, not " + journalOption);
        }
        journal = journalOption.equals("on");
        final OrderFlow f = OrderFlow.load(flow, flowDir);
        final ApiCommand[] pass = commands(f);
        final ExchangeConfiguration config = configuration(data);
        System.out.printf("exchange-core pipeline on order flow %s (%s), journal %s, wait %s, from %s%n", flow, f.summary(),
            journal ? "on (rwd file: synchronous writes)" : "off", wait, OrderFlow.file(flow, flowDir));
        final ExchangeCore core = ExchangeCore.builder().resultsConsumer(this::onResult).exchangeConfiguration(config).build();
        core.startup();
        try
        {
            final ExchangeApi api = core.getApi();
            setUp(api, f);
            final int total = warmup + messages;
            int cursor = 0;
            if (rate > 0)
            {
                final long interval = 1_000_000_000L / rate;
                long next = System.nanoTime();
                for (int i = 0; i < total; i++)
                {
                    while (System.nanoTime() < next)
                    {
                        Thread.yield();
                    }
                    final ApiCommand c = pass[cursor];
                    c.timestamp = i >= warmup ? next : 0;
                    api.submitCommand(c);
                    cursor = cursor + 1 == pass.length ? 0 : cursor + 1;
                    next += interval;
                }
                await(total);
                final Histogram h = histogram.copy();
                System.out.printf("latency journal %s at %,d flow commands/s offered, %,d measured after %,d warm-up (us): " +
                    "p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  p99.99 %.1f  max %.1f%n", journal ? "on" : "off", rate,
                    h.getTotalCount(), warmup, h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(90) / 1e3,
                    h.getValueAtPercentile(99) / 1e3, h.getValueAtPercentile(99.9) / 1e3, h.getValueAtPercentile(99.99) / 1e3,
                    h.getMaxValue() / 1e3);
                check(f, total);
                final ObjectNode figures = JSON.createObjectNode();
                final ObjectNode p = figures.putObject("latency");
                p.put("p50", h.getValueAtPercentile(50) / 1e3);
                p.put("p90", h.getValueAtPercentile(90) / 1e3);
                p.put("p99", h.getValueAtPercentile(99) / 1e3);
                p.put("p99.9", h.getValueAtPercentile(99.9) / 1e3);
                p.put("p99.99", h.getValueAtPercentile(99.99) / 1e3);
                p.put("max", h.getMaxValue() / 1e3);
                p.put("count", h.getTotalCount());
                writeFigures(figures);
            }
            else
            {
                for (int i = 0; i < warmup; i++)
                {
                    pass[cursor].timestamp = 0;
                    api.submitCommand(pass[cursor]);
                    cursor = cursor + 1 == pass.length ? 0 : cursor + 1;
                }
                await(warmup);
                final long t0 = System.nanoTime();
                for (int i = 0; i < messages; i++)
                {
                    pass[cursor].timestamp = 0;
                    api.submitCommand(pass[cursor]);
                    cursor = cursor + 1 == pass.length ? 0 : cursor + 1;
                }
                await(total);
                final long ns = System.nanoTime() - t0;
                check(f, total);
                System.out.printf("throughput journal %s: %,d flow commands in %.3f s = %,.0f flow commands/s%n",
                    journal ? "on" : "off", messages, ns / 1e9, messages * 1e9 / ns);
                final ObjectNode figures = JSON.createObjectNode();
                figures.put("flowCommands", messages);
                figures.put("seconds", ns / 1e9);
                figures.put("flowCommandsPerSecond", messages * 1e9 / ns);
                writeFigures(figures);
            }
        }
        finally
        {
            core.shutdown();
        }
        if (journal)
        {
            System.out.printf("journal files: %,d bytes%n", size(data));
        }
        return 0;
    }

    private ExchangeConfiguration configuration(final Path data)
    {
        final PerformanceConfiguration performance = PerformanceConfiguration.baseBuilder()
            .waitStrategy(wait)
            .threadFactory(Thread::new)
            .orderBookFactory(OrderBookDirectImpl::new)
            .build();
        final SerializationConfiguration serialization = journal
            ? SerializationConfiguration.builder().enableJournaling(true).serializationProcessorFactory(cfg ->
                new DiskSerializationProcessor(cfg, DiskSerializationProcessorConfiguration.builder()
                    .storageFolder(data.toString())
                    .snapshotLz4CompressorFactory(DiskSerializationProcessorConfiguration.LZ4_FAST)
                    .journalFileMaxSize(4000L * 1024 * 1024)
                    .journalBufferSize(256 * 1024)
                    .journalBatchCompressThreshold(2048)
                    .journalLz4CompressorFactory(DiskSerializationProcessorConfiguration.LZ4_FAST)
                    .build())).build()
            : SerializationConfiguration.DEFAULT;
        return ExchangeConfiguration.defaultBuilder()
            .performanceCfg(performance)
            .initStateCfg(journal ? InitialStateConfiguration.cleanStartJournaling("GPUXBENCH")
                : InitialStateConfiguration.cleanStart("GPUXBENCH"))
            .serializationCfg(serialization)
            .build();
    }

    /** The symbol, the flow's users and their balances (both currencies), confirmed before the flow starts. */
    private static void setUp(final ExchangeApi api, final OrderFlow f) throws Exception
    {
        check(api.submitBinaryDataAsync(new BatchAddSymbolsCommand(BookReplayer.symbol())).get(), "add symbol");
        final List<CompletableFuture<CommandResultCode>> results = new ArrayList<>();
        long transaction = 1;
        for (long uid = 1; uid <= f.users; uid++)
        {
            results.add(api.submitCommandAsync(ApiAddUser.builder().uid(uid).build()));
            for (final int currency : new int[] {BookReplayer.BASE, BookReplayer.QUOTE})
            {
                results.add(api.submitCommandAsync(ApiAdjustUserBalance.builder().uid(uid).currency(currency).amount(BALANCE)
                    .transactionId(transaction++).build()));
            }
        }
        for (final CompletableFuture<CommandResultCode> r : results)
        {
            check(r.get(), "set-up");
        }
    }

    private static void check(final CommandResultCode code, final String what)
    {
        if (code != CommandResultCode.SUCCESS)
        {
            throw new IllegalStateException("exchange-core " + what + ": " + code);
        }
    }

    /** One pass of the flow as exchange-core API commands, made once and submitted again and again. */
    static ApiCommand[] commands(final OrderFlow f)
    {
        final ApiCommand[] out = new ApiCommand[f.size()];
        for (int i = 0; i < f.size(); i++)
        {
            final byte type = f.type[i];
            final long uid = f.uid[i];
            final long id = f.orderId[i];
            if (OrderFlow.isPlace(type))
            {
                final boolean bid = OrderFlow.isBid(type);
                out[i] = ApiPlaceOrder.builder().uid(uid).orderId(id).price(f.price[i]).size(f.size[i])
                    .reservePrice(bid ? f.maxPrice : 0).action(bid ? OrderAction.BID : OrderAction.ASK)
                    .orderType(OrderFlow.isIoc(type) ? OrderType.IOC : OrderType.GTC).symbol(BookReplayer.SYMBOL).build();
            }
            else if (type == OrderFlow.CANCEL)
            {
                out[i] = ApiCancelOrder.builder().uid(uid).orderId(id).symbol(BookReplayer.SYMBOL).build();
            }
            else if (type == OrderFlow.MOVE)
            {
                out[i] = ApiMoveOrder.builder().uid(uid).orderId(id).newPrice(f.price[i]).symbol(BookReplayer.SYMBOL).build();
            }
            else
            {
                out[i] = ApiReduceOrder.builder().uid(uid).orderId(id).reduceSize(f.size[i]).symbol(BookReplayer.SYMBOL).build();
            }
        }
        return out;
    }

    private void await(final long count)
    {
        while (processed.get() < count)
        {
            Thread.yield();
        }
    }

    /** Every command succeeded, and whole passes traded what the flow's reference book did. */
    private void check(final OrderFlow f, final long total)
    {
        if (failed != 0)
        {
            throw new IllegalStateException("exchange-core failed " + failed + " flow commands, first: " + firstFailure);
        }
        final long passes = total / f.size();
        if (trades < passes * f.trades || trades > (passes + 1) * f.trades)
        {
            throw new IllegalStateException("exchange-core traded " + trades + " times in " + total + " flow commands, the " +
                "flow's reference book " + f.trades + " per pass of " + f.size());
        }
    }

    private static long size(final Path dir) throws IOException
    {
        try (Stream<Path> s = Files.walk(dir))
        {
            return s.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
    }
}
