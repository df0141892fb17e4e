package io.gpux.client.cli;

import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.Accepted;
import io.gpux.proto.v1.Balance;
import io.gpux.proto.v1.Cancelled;
import io.gpux.proto.v1.Fill;
import io.gpux.proto.v1.LeaseEnded;
import io.gpux.proto.v1.LeaseStarted;
import io.gpux.proto.v1.PreemptNotice;
import io.gpux.proto.v1.Rejected;
import io.gpux.proto.v1.Settled;

/**
 * An account event as one line: for people ({@code #12  2025-11-30 05:14:00.000Z  FILL  order=7 ...})
 * or as a JSON object ({@code {"type":"event","seq":12,...,"kind":"FILL","order_id":7,...}}) that follows
 * {@link Json}'s rules: a fill that preempts nothing has no {@code preempts_lease_id}.
 * Enum values are written as the protocol names them.
 */
final class EventFormat
{
    private static final int KIND_WIDTH = 15;

    private EventFormat()
    {
    }

    static String human(final AccountEvent e)
    {
        final StringBuilder sb = new StringBuilder(96).append('#').append(e.getSeq()).append("  ")
            .append(Format.time(e.getTimeMs())).append("  ");
        final String kind = e.getKindCase().name();
        sb.append(kind).append(" ".repeat(Math.max(1, KIND_WIDTH + 1 - kind.length())));
        switch (e.getKindCase())
        {
            case ACCEPTED -> sb.append("order=").append(e.getAccepted().getOrderId());
            case REJECTED ->
            {
                final Rejected r = e.getRejected();
                sb.append("order=").append(r.getOrderId()).append(" reason=").append(r.getReason())
                    .append(" command=").append(r.getCommand());
            }
            case CANCELLED ->
            {
                final Cancelled c = e.getCancelled();
                sb.append("order=").append(c.getOrderId()).append(" reason=").append(c.getReason())
                    .append(" remaining=").append(c.getRemaining());
            }
            case FILL ->
            {
                final Fill f = e.getFill();
                sb.append("order=").append(f.getOrderId()).append(" counter=").append(f.getCounterOrderId())
                    .append(" lease=").append(f.getLeaseId()).append(" gpus=").append(f.getGpus())
                    .append(" price=").append(Format.price(f.getPrice()));
                if (f.getPreemptsLeaseId() != 0)
                {
                    sb.append(" preempts=").append(f.getPreemptsLeaseId());
                }
            }
            case LEASE_STARTED ->
            {
                final LeaseStarted s = e.getLeaseStarted();
                sb.append("lease=").append(s.getLeaseId()).append(" market=").append(s.getMarket())
                    .append(" machine=").append(s.getMachineId()).append(" gpus=").append(s.getGpus())
                    .append(" price=").append(Format.price(s.getPrice())).append(" as=")
                    .append(s.getRenter() ? "renter" : "owner");
            }
            case PREEMPT_NOTICE ->
            {
                final PreemptNotice n = e.getPreemptNotice();
                sb.append("lease=").append(n.getLeaseId()).append(" reason=").append(n.getReason())
                    .append(" effective=").append(Format.time(n.getEffectiveMs()));
            }
            case LEASE_ENDED ->
            {
                final LeaseEnded l = e.getLeaseEnded();
                sb.append("lease=").append(l.getLeaseId()).append(" reason=").append(l.getReason())
                    .append(" cost=").append(Format.money(l.getCost())).append(" fee=").append(Format.money(l.getFee()));
            }
            case SETTLED ->
            {
                final Settled s = e.getSettled();
                sb.append("lease=").append(s.getLeaseId()).append(" charge=").append(Format.money(s.getCharge()))
                    .append(" fee=").append(Format.money(s.getFee())).append(" period=").append(s.getPeriod())
                    .append(" ms=").append(s.getMs());
            }
            case BALANCE ->
            {
                final Balance b = e.getBalance();
                sb.append("balance=").append(Format.money(b.getBalance()))
                    .append(" available=").append(Format.money(b.getAvailable()));
            }
            case MACHINE_ONLINE -> sb.append("machine=").append(e.getMachineOnline().getMachineId());
            case MACHINE_OFFLINE -> sb.append("machine=").append(e.getMachineOffline().getMachineId());
            default -> sb.append("(a kind this client does not know)");
        }
        return sb.toString();
    }

    static Json json(final AccountEvent e)
    {
        final Json j = new Json().put("type", "event").put("seq", e.getSeq()).put("engine_seq", e.getEngineSeq())
            .putTime("time", e.getTimeMs()).putPositive("command_seq", e.getCommandSeq()).put("kind", e.getKindCase().name());
        switch (e.getKindCase())
        {
            case ACCEPTED ->
            {
                final Accepted a = e.getAccepted();
                j.put("order_id", a.getOrderId());
            }
            case REJECTED ->
            {
                final Rejected r = e.getRejected();
                j.putPositive("order_id", r.getOrderId()).put("reason", r.getReason().name()).put("command", r.getCommand().name());
            }
            case CANCELLED ->
            {
                final Cancelled c = e.getCancelled();
                j.put("order_id", c.getOrderId()).put("reason", c.getReason().name()).put("remaining", c.getRemaining());
            }
            case FILL ->
            {
                final Fill f = e.getFill();
                j.put("order_id", f.getOrderId()).put("counter_order_id", f.getCounterOrderId())
                    .put("lease_id", f.getLeaseId()).put("gpus", f.getGpus()).put("price", Format.price(f.getPrice()))
                    .putPositive("preempts_lease_id", f.getPreemptsLeaseId());
            }
            case LEASE_STARTED ->
            {
                final LeaseStarted s = e.getLeaseStarted();
                j.put("lease_id", s.getLeaseId()).put("market", s.getMarket()).put("machine_id", s.getMachineId())
                    .put("gpus", s.getGpus()).put("price", Format.price(s.getPrice())).put("renter", s.getRenter());
            }
            case PREEMPT_NOTICE ->
            {
                final PreemptNotice n = e.getPreemptNotice();
                j.put("lease_id", n.getLeaseId()).put("reason", n.getReason().name()).putTime("effective", n.getEffectiveMs());
            }
            case LEASE_ENDED ->
            {
                final LeaseEnded l = e.getLeaseEnded();
                j.put("lease_id", l.getLeaseId()).put("reason", l.getReason().name())
                    .put("cost", Format.money(l.getCost())).put("fee", Format.money(l.getFee()));
            }
            case SETTLED ->
            {
                final Settled s = e.getSettled();
                j.put("lease_id", s.getLeaseId()).put("charge", Format.money(s.getCharge()))
                    .put("fee", Format.money(s.getFee())).put("period", s.getPeriod()).put("ms", s.getMs());
            }
            case BALANCE ->
            {
                final Balance b = e.getBalance();
                j.put("balance", Format.money(b.getBalance())).put("available", Format.money(b.getAvailable()));
            }
            case MACHINE_ONLINE -> j.put("machine_id", e.getMachineOnline().getMachineId());
            case MACHINE_OFFLINE -> j.put("machine_id", e.getMachineOffline().getMachineId());
            default ->
            {
            }
        }
        return j;
    }
}
