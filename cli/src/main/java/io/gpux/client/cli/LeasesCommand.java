package io.gpux.client.cli;

import io.gpux.client.GpuxClient;
import io.gpux.proto.v1.GpuTelemetry;
import io.gpux.proto.v1.LeaseInfo;
import io.gpux.proto.v1.MachineInfo;
import io.gpux.proto.v1.OpenOrder;
import io.gpux.proto.v1.Portfolio;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import picocli.CommandLine.Command;

/** {@code gpux leases}: the account's portfolio: money, open orders, leases, machines with their telemetry. */
@Command(name = "leases", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Shows your balance and available funds, open orders, leases oldest first (state, when each ends "
        + "and why: its notice or its maximum duration, its cost so far, how long the renter's hold has paid for) and "
        + "machines (online, reliability, GPU telemetry with its age).")
public final class LeasesCommand extends ClientCommand
{
    @Override
    int execute() throws Exception
    {
        try (GpuxClient client = connect(null))
        {
            final Portfolio p = byStart(client.portfolio(timeout()));
            final String account = client.loginAccepted().getAccount();
            if (json)
            {
                printJson(account, p);
            }
            else
            {
                printText(account, p);
            }
            return 0;
        }
    }

    private void printJson(final String account, final Portfolio p)
    {
        out().println(new Json().put("type", "account").put("account", account).put("balance", Format.money(p.getBalance()))
            .put("available", Format.money(p.getAvailable())).put("last_seq", p.getLastSeq()));
        for (final OpenOrder o : p.getOrdersList())
        {
            final Json j = new Json().put("type", "order").put("order_id", o.getOrderId()).put("market", o.getMarket())
                .put("side", o.getSide().name()).put("price", Format.price(o.getPrice())).put("open_gpus", o.getOpenGpus());
            if (o.getMachineId() != 0)
            {
                j.put("machine_id", o.getMachineId());
            }
            out().println(j);
        }
        for (final LeaseInfo l : p.getLeasesList())
        {
            out().println(new Json().put("type", "lease").put("lease_id", l.getLeaseId()).put("market", l.getMarket())
                .put("machine_id", l.getMachineId()).put("gpus", l.getGpus()).put("price", Format.price(l.getPrice()))
                .put("state", l.getState().name()).put("renter", l.getRenter()).putTime("start", l.getStartMs())
                .putTime("notice_effective", l.getNoticeEffectiveMs()).putTime("ends", l.getEndsMs())
                .putText("ends_by", endsBy(l)).put("cost", Format.money(l.getCost())).put("fee", Format.money(l.getFee()))
                .putTime("prepaid_until", l.getPrepaidUntilMs()).putSpan("prepaid_left_ms", prepaidLeftMs(p, l)));
        }
        for (final MachineInfo m : p.getMachinesList())
        {
            final List<Json> telemetry = new ArrayList<>();
            for (final GpuTelemetry t : m.getTelemetryList())
            {
                telemetry.add(new Json().put("uuid", t.getUuid()).put("utilization_pct", t.getUtilizationPct())
                    .put("memory_utilization_pct", t.getMemoryUtilizationPct()).put("memory_used_mib", t.getMemoryUsedMib())
                    .put("memory_total_mib", t.getMemoryTotalMib()).put("temperature_c", t.getTemperatureC())
                    .put("power_draw_mw", t.getPowerDrawMw()).put("power_limit_mw", t.getPowerLimitMw()));
            }
            out().println(new Json().put("type", "machine").put("machine_id", m.getMachineId()).put("name", m.getName())
                .put("market", m.getMarket()).put("gpus", m.getGpus()).put("online", m.getOnline())
                .put("reliability", Format.ppm(m.getReliabilityPpm())).put("telemetry", telemetry)
                .putSpan("telemetry_age_ms", telemetryAgeMs(p, m)));
        }
    }

    private void printText(final String account, final Portfolio p)
    {
        out().println("account " + account + "  balance " + Format.money(p.getBalance()) + "  available "
            + Format.money(p.getAvailable()));
        out().println();
        if (p.getOrdersCount() == 0)
        {
            out().println("no open orders");
        }
        else
        {
            out().println("open orders:");
            final Table orders = new Table("ORDER", "SIDE", "MARKET", "PRICE", "OPEN", "MACHINE");
            for (final OpenOrder o : p.getOrdersList())
            {
                orders.row(o.getOrderId(), o.getSide().name(), o.getMarket(), Format.price(o.getPrice()), o.getOpenGpus(),
                    o.getMachineId() == 0 ? "-" : Long.toString(o.getMachineId()));
            }
            orders.print(out());
        }
        out().println();
        if (p.getLeasesCount() == 0)
        {
            out().println("no leases");
        }
        else
        {
            out().println("leases:");
            final Table leases = new Table("LEASE", "AS", "MARKET", "MACHINE", "GPUS", "PRICE", "STATE", "STARTED", "ENDS",
                "BY", "COST", "PREPAID_LEFT");
            for (final LeaseInfo l : p.getLeasesList())
            {
                leases.row(l.getLeaseId(), l.getRenter() ? "renter" : "owner", l.getMarket(), l.getMachineId(), l.getGpus(),
                    Format.price(l.getPrice()), l.getState().name(), Format.time(l.getStartMs()), Format.time(l.getEndsMs()),
                    endsBy(l), Format.money(l.getCost()), Format.span(prepaidLeftMs(p, l)));
            }
            leases.print(out());
        }
        if (p.getMachinesCount() > 0)
        {
            out().println();
            out().println("machines:");
            final Table machines = new Table("MACHINE", "NAME", "MARKET", "GPUS", "ONLINE", "RELIABILITY");
            final Table telemetry = new Table("MACHINE", "GPU", "UTIL%", "MEM_USED_MIB", "MEM_TOTAL_MIB", "TEMP_C",
                "POWER_W", "LIMIT_W", "AGE");
            for (final MachineInfo m : p.getMachinesList())
            {
                machines.row(m.getMachineId(), m.getName(), m.getMarket(), m.getGpus(), m.getOnline() ? "yes" : "no",
                    Format.ppm(m.getReliabilityPpm()));
                for (final GpuTelemetry t : m.getTelemetryList())
                {
                    telemetry.row(m.getMachineId(), t.getUuid(), t.getUtilizationPct(), t.getMemoryUsedMib(),
                        t.getMemoryTotalMib(), t.getTemperatureC(), watts(t.getPowerDrawMw()), watts(t.getPowerLimitMw()),
                        Format.span(telemetryAgeMs(p, m)));
                }
            }
            machines.print(out());
            if (!telemetry.isEmpty())
            {
                out().println();
                out().println("GPU telemetry (latest heartbeat):");
                telemetry.print(out());
            }
        }
    }

    /** The portfolio with its leases oldest first (pending ones, not started yet, last), then by id. */
    static Portfolio byStart(final Portfolio p)
    {
        final List<LeaseInfo> leases = new ArrayList<>(p.getLeasesList());
        leases.sort(Comparator.comparingLong((LeaseInfo l) -> l.getStartMs() == 0 ? Long.MAX_VALUE : l.getStartMs())
            .thenComparingLong(LeaseInfo::getLeaseId));
        return p.toBuilder().clearLeases().addAllLeases(leases).build();
    }

    /** What ends the lease at {@code ends_ms}: {@code notice}, {@code expiry} (its maximum duration) or {@code -}. */
    static String endsBy(final LeaseInfo l)
    {
        return l.getNoticeEffectiveMs() != 0 ? "notice" : l.getEndsMs() != 0 ? "expiry" : "-";
    }

    /** How long the renter's hold still pays for at the portfolio's time; -1 for a lease not started. */
    static long prepaidLeftMs(final Portfolio p, final LeaseInfo l)
    {
        return l.getPrepaidUntilMs() == 0 ? -1 : Math.max(0, l.getPrepaidUntilMs() - p.getTimeMs());
    }

    /** How old the machine's telemetry is at the portfolio's time; -1 for none. */
    static long telemetryAgeMs(final Portfolio p, final MachineInfo m)
    {
        return m.getTelemetryMs() == 0 ? -1 : Math.max(0, p.getTimeMs() - m.getTelemetryMs());
    }

    /** Milliwatts as watts with 3 decimals. */
    private static String watts(final long milliwatts)
    {
        final String fraction = Long.toString(milliwatts % 1000);
        return milliwatts / 1000 + "." + "0".repeat(3 - fraction.length()) + fraction;
    }

    public static void main(final String[] args)
    {
        GpuxCli.main("leases", args);
    }
}
