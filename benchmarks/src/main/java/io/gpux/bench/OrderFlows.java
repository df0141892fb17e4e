package io.gpux.bench;

import io.gpux.bench.flow.OrderFlow;
import io.gpux.bench.flow.SyntheticOrderFlow;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The order flows that gpux and exchange-core are compared on, by name: {@code lobster} (the LOBSTER day of
 * {@code EngineBenchmark.lobster}, {@link LobsterOrderFlow}) and {@code synthetic} ({@link SyntheticOrderFlow}).
 * Both sides read them from the same files, {@code benchmarks/target/flows/NAME.flow}, written by
 * {@link #main} ({@code ./gpux bench} does it first):
 *
 * <pre>
 *   java -cp benchmarks/target/benchmarks.jar io.gpux.bench.OrderFlows [--dir DIR] [--lobster-zip ZIP] [NAME...]
 * </pre>
 */
public final class OrderFlows
{
    public static final String[] NAMES = {"lobster", "synthetic"};
    /** Where the flow files go, relative to the project root. */
    public static final String DEFAULT_DIR = "benchmarks/target/flows";

    private static final Map<String, OrderFlow> CACHE = new HashMap<>();

    private OrderFlows()
    {
    }

    /** Generates a flow (the LOBSTER one from {@code lobsterZip}, or found as EngineBenchmark finds it when empty). */
    public static OrderFlow generate(final String name, final String lobsterZip)
    {
        return switch (name)
        {
            case "lobster" -> LobsterOrderFlow.build(DataFiles.find(lobsterZip, DataFiles.GOOG_10));
            case "synthetic" -> SyntheticOrderFlow.generate();
            default -> throw new IllegalArgumentException("unknown order flow '" + name + "' (lobster, synthetic)");
        };
    }

    /**
     * A flow read from {@code dir/NAME.flow} (dir empty: the default directory, found from the working directory
     * up); generated when there is no such file.
     */
    public static synchronized OrderFlow get(final String name, final String dir)
    {
        final Path file = file(name, dir);
        return CACHE.computeIfAbsent(name + "@" + file, k ->
        {
            try
            {
                if (Files.isRegularFile(file))
                {
                    System.out.println("[order flow " + name + " read from " + file + ", sha256 " + OrderFlow.sha256(file) + "]");
                    return OrderFlow.read(file);
                }
                System.out.println("[order flow " + name + ": no " + file + ", generated here]");
                return generate(name, "");
            }
            catch (final IOException e)
            {
                throw new UncheckedIOException(e);
            }
        });
    }

    /** The file of a flow: {@code dir/NAME.flow}, dir empty meaning {@link #defaultDir()}. */
    public static Path file(final String name, final String dir)
    {
        return (dir == null || dir.isEmpty() ? defaultDir() : Path.of(dir)).resolve(name + ".flow");
    }

    /** {@value #DEFAULT_DIR} under the project root (the first directory up from here with a benchmarks/pom.xml). */
    public static Path defaultDir()
    {
        for (File d = new File("").getAbsoluteFile(); d != null; d = d.getParentFile())
        {
            if (new File(d, "benchmarks/pom.xml").isFile())
            {
                return d.toPath().resolve(DEFAULT_DIR);
            }
        }
        return Path.of("target/flows").toAbsolutePath();
    }

    /** What {@link #export} wrote. */
    public record Exported(String name, Path file, String sha256, int commands, long trades, long volume,
        double gpuxCommandsPerFlowCommand, String summary, String gpuxNotes)
    {
    }

    /**
     * Generates a flow, checks that gpux does with it what the reference book does ({@link OrderFlowWorkload}), and
     * writes it to {@code dir/NAME.flow}.
     */
    public static Exported export(final String name, final Path dir, final String lobsterZip) throws IOException
    {
        final OrderFlow flow = generate(name, lobsterZip);
        final OrderFlowWorkload gpux = OrderFlowWorkload.of(flow);
        final Path file = dir.resolve(name + ".flow");
        flow.write(file);
        synchronized (OrderFlows.class)
        {
            CACHE.keySet().removeIf(k -> k.startsWith(name + "@"));
        }
        return new Exported(name, file, OrderFlow.sha256(file), flow.size(), flow.trades, flow.volume,
            gpux.commandsPerMessage(), flow.summary(), gpux.workload.notes);
    }

    /** Writes the flows: {@code [--dir DIR] [--lobster-zip ZIP] [NAME...]} (all of them by default). */
    public static void main(final String[] args) throws IOException
    {
        String dir = "";
        String zip = "";
        final List<String> names = new ArrayList<>();
        for (int i = 0; i < args.length; i++)
        {
            switch (args[i])
            {
                case "--dir" -> dir = args[++i];
                case "--lobster-zip" -> zip = args[++i];
                case "-h", "--help" ->
                {
                    System.out.println("usage: OrderFlows [--dir DIR] [--lobster-zip ZIP] [lobster] [synthetic]");
                    return;
                }
                default -> names.add(args[i]);
            }
        }
        if (names.isEmpty())
        {
            names.addAll(List.of(NAMES));
        }
        for (final String name : names)
        {
            final long t0 = System.nanoTime();
            final Exported e = export(name, file(name, dir).getParent(), zip);
            System.out.printf("%s%n  gpux: %s%n  -> %s (%,d bytes, sha256 %s) in %.1f s%n", e.summary(), e.gpuxNotes(), e.file(),
                Files.size(e.file()), e.sha256(), (System.nanoTime() - t0) / 1e9);
        }
    }
}
