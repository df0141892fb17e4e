package io.gpux.client.cli;

import io.gpux.client.GpuxClient;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.ResendComplete;
import java.io.IOException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.List;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code gpux statement}: the account's settlements over a time range, per lease, as text, CSV or JSON.
 * Built from the account's event history, which the gateway resends from its event journal.
 */
@Command(name = "statement", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Your statement: per lease, the settlements made from --from up to (not including) --to, with "
        + "their charges and the exchange's fees. A renter's lease is spend (the charge; the fee is taken out of it), "
        + "an owner's is earnings (the charge less the fee, what you were credited). Read from your account's event "
        + "history, so it matches gpux watch --from-seq 1 to the micro-unit.",
        "Times: 2026-12-01 (midnight UTC), 2026-12-01T10:00:00Z, or milliseconds since the epoch.",
        "Exit status: 0 done, 2 bad usage, 3 connection or login failure."})
public final class StatementCommand extends ClientCommand
{
    static final String[] COLUMNS = {"lease_id", "role", "market", "machine_id", "gpus", "price", "started", "ended",
        "end_reason", "settlements", "billed_ms", "charge", "fee", "net"};

    @Option(names = "--from", paramLabel = "TIME", converter = Time.class, description = "from this time (default: the start)")
    long fromMs;

    @Option(names = "--to", paramLabel = "TIME", converter = Time.class, description = "before this time (default: now)")
    long toMs = Long.MAX_VALUE;

    @Option(names = "--csv", description = "CSV (RFC 4180) with a header row, one row per lease")
    boolean csv;

    /** A time as typed: a UTC date, an ISO-8601 instant, or epoch milliseconds. */
    static final class Time implements ITypeConverter<Long>
    {
        @Override
        public Long convert(final String value)
        {
            try
            {
                if (value.matches("[0-9]+"))
                {
                    return Long.parseLong(value);
                }
                if (value.matches("[0-9]{4}-[0-9]{2}-[0-9]{2}"))
                {
                    return LocalDate.parse(value).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
                }
                return Instant.parse(value).toEpochMilli();
            }
            catch (final DateTimeParseException | NumberFormatException ex)
            {
                throw new TypeConversionException("a time is 2026-12-01, 2026-12-01T10:00:00Z or epoch milliseconds: '"
                    + value + "'");
            }
        }
    }

    @Override
    int execute() throws Exception
    {
        if (csv && json)
        {
            throw CliException.usage("--csv and --json: choose one");
        }
        if (fromMs >= toMs)
        {
            throw CliException.usage("--from must be before --to");
        }
        final Statement statement = new Statement(fromMs, toMs);
        final StreamListener stream = new StreamListener(true, null);
        final String account;
        try (GpuxClient client = connect(stream, ctx -> ctx.lastSeq(0)))
        {
            account = client.loginAccepted().getAccount();
            while (true)
            {
                final Object message = stream.next(timeout().toMillis());
                if (message == null)
                {
                    throw CliException.connection("the event history did not arrive within " + timeout().toMillis()
                        + " ms (--timeout)");
                }
                if (message instanceof AccountEvent event)
                {
                    statement.add(event);
                }
                else if (message instanceof ResendComplete)
                {
                    break;
                }
                else if (message instanceof StreamListener.Disconnected lost && !lost.reconnecting())
                {
                    throw CliException.connection("disconnected: " + lost.reason());
                }
            }
        }
        final List<Statement.Line> lines = statement.lines();
        if (csv)
        {
            printCsv(lines);
        }
        else if (json)
        {
            printJson(account, lines);
        }
        else
        {
            printText(account, lines);
        }
        return 0;
    }

    private void printCsv(final List<Statement.Line> lines) throws IOException
    {
        final CSVFormat format = CSVFormat.RFC4180.builder().setHeader(COLUMNS).get();
        try (CSVPrinter printer = new CSVPrinter(out(), format))
        {
            for (final Statement.Line l : lines)
            {
                printer.printRecord(l.leaseId, role(l), l.market, l.machineId, l.gpus, Format.price(l.price),
                    instant(l.startedMs), instant(l.endedMs), l.endReason, l.settlements, l.billedMs, Format.money(l.charge),
                    Format.money(l.fee), Format.money(l.net()));
            }
            printer.flush();
        }
    }

    private void printJson(final String account, final List<Statement.Line> lines)
    {
        for (final Statement.Line l : lines)
        {
            out().println(new Json().put("type", "statement_line").put("lease_id", l.leaseId)
                .put("role", role(l)).put("market", l.market).putPositive("machine_id", l.machineId).put("gpus", l.gpus)
                .put("price", Format.price(l.price)).putTime("started", l.startedMs).putTime("ended", l.endedMs)
                .putText("end_reason", l.endReason).put("settlements", l.settlements).put("billed_ms", l.billedMs)
                .put("charge", Format.money(l.charge)).put("fee", Format.money(l.fee)).put("net", Format.money(l.net())));
        }
        out().println(new Json().put("type", "statement").put("account", account).putTime("from", fromMs)
            .putTime("to", toMs == Long.MAX_VALUE ? 0 : toMs).put("leases", lines.size())
            .put("spend", Format.money(Statement.spend(lines))).put("earnings", Format.money(Statement.earnings(lines)))
            .put("owner_fees", Format.money(Statement.ownerFees(lines))));
    }

    private void printText(final String account, final List<Statement.Line> lines)
    {
        out().println("statement of " + account + " from " + (fromMs == 0 ? "the start" : Format.time(fromMs)) + " to "
            + (toMs == Long.MAX_VALUE ? "now" : Format.time(toMs)));
        out().println();
        if (lines.isEmpty())
        {
            out().println("no settlements");
            return;
        }
        final Table table = new Table("LEASE", "AS", "MARKET", "MACHINE", "GPUS", "PRICE", "STARTED", "ENDED", "REASON",
            "BILLED", "CHARGE", "FEE", "NET");
        for (final Statement.Line l : lines)
        {
            table.row(l.leaseId, role(l), l.market, l.machineId, l.gpus, Format.price(l.price), Format.time(l.startedMs),
                Format.time(l.endedMs), l.endReason.isEmpty() ? "-" : l.endReason, Format.span(l.billedMs),
                Format.money(l.charge), Format.money(l.fee), Format.money(l.net()));
        }
        table.print(out());
        out().println();
        out().println("spend " + Format.money(Statement.spend(lines)) + "  earnings " + Format.money(Statement.earnings(lines))
            + "  (fees on earnings " + Format.money(Statement.ownerFees(lines)) + ")");
    }

    private static String role(final Statement.Line l)
    {
        return l.renter ? "renter" : "owner";
    }

    private static String instant(final long ms)
    {
        return ms == 0 ? "" : Instant.ofEpochMilli(ms).toString();
    }

    public static void main(final String[] args)
    {
        GpuxCli.main("statement", args);
    }
}
