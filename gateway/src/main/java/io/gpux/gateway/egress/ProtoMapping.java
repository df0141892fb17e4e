package io.gpux.gateway.egress;

import io.gpux.engine.command.CommandType;
import io.gpux.engine.event.CancelReason;
import io.gpux.engine.event.EndReason;
import io.gpux.engine.event.Event;
import io.gpux.engine.event.NoticeReason;
import io.gpux.engine.event.RejectReason;
import io.gpux.gateway.directory.Directory;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.Accepted;
import io.gpux.proto.v1.Balance;
import io.gpux.proto.v1.Cancelled;
import io.gpux.proto.v1.CommandKind;
import io.gpux.proto.v1.Fill;
import io.gpux.proto.v1.LeaseEnded;
import io.gpux.proto.v1.LeaseStarted;
import io.gpux.proto.v1.MachineOffline;
import io.gpux.proto.v1.MachineOnline;
import io.gpux.proto.v1.PreemptNotice;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Rejected;
import io.gpux.proto.v1.Settled;
import io.gpux.proto.v1.Trade;

/**
 * Engine enums and events to their wire form as the generated messages. The egress writes account
 * events and trades without building messages ({@link EventFrames}, the same bytes); this form is
 * for the embedded gateway ({@code io.gpux.gateway.embedded}) and the reference the egress's encoder
 * is tested against.
 */
public final class ProtoMapping
{
    private static final Reason[] REASONS = new Reason[RejectReason.values().length];
    private static final io.gpux.proto.v1.CancelReason[] CANCELS = {
        io.gpux.proto.v1.CancelReason.USER, io.gpux.proto.v1.CancelReason.OWNER_RECLAIM,
        io.gpux.proto.v1.CancelReason.MASS_CANCEL, io.gpux.proto.v1.CancelReason.CANCEL_IOC,
        io.gpux.proto.v1.CancelReason.CANCEL_FOK, io.gpux.proto.v1.CancelReason.EXCHANGE_RESTART};
    private static final io.gpux.proto.v1.EndReason[] ENDS = new io.gpux.proto.v1.EndReason[EndReason.values().length];
    private static final io.gpux.proto.v1.NoticeReason[] NOTICES =
        new io.gpux.proto.v1.NoticeReason[NoticeReason.values().length];
    private static final CommandKind[] KINDS = new CommandKind[CommandType.COUNT];

    static
    {
        for (final RejectReason r : RejectReason.values())
        {
            REASONS[r.ordinal()] = Reason.valueOf(r.name());
        }
        for (final CancelReason r : CancelReason.values())
        {
            if (!CANCELS[r.ordinal()].name().endsWith(r.name()))
            {
                throw new IllegalStateException("cancel reasons out of step: " + r);
            }
        }
        for (final EndReason r : EndReason.values())
        {
            ENDS[r.ordinal()] = r == EndReason.INSUFFICIENT_FUNDS ?
                io.gpux.proto.v1.EndReason.END_INSUFFICIENT_FUNDS : io.gpux.proto.v1.EndReason.valueOf(r.name());
        }
        for (final NoticeReason r : NoticeReason.values())
        {
            NOTICES[r.ordinal()] = r == NoticeReason.OUTBID ?
                io.gpux.proto.v1.NoticeReason.OUTBID : io.gpux.proto.v1.NoticeReason.valueOf("NOTICE_" + r.name());
        }
        for (final CommandType t : CommandType.values())
        {
            KINDS[t.ordinal()] = CommandKind.valueOf("CMD_" + t.name());
        }
    }

    private ProtoMapping()
    {
    }

    public static Reason reason(final RejectReason r)
    {
        return r == null ? Reason.REASON_OK : REASONS[r.ordinal()];
    }

    static io.gpux.proto.v1.CancelReason cancelReason(final CancelReason r)
    {
        return CANCELS[r.ordinal()];
    }

    static io.gpux.proto.v1.EndReason endReason(final EndReason r)
    {
        return ENDS[r.ordinal()];
    }

    static io.gpux.proto.v1.NoticeReason noticeReason(final NoticeReason r)
    {
        return NOTICES[r.ordinal()];
    }

    static CommandKind commandKind(final CommandType t)
    {
        return t == null ? CommandKind.COMMAND_KIND_UNSPECIFIED : KINDS[t.ordinal()];
    }

    /**
     * The wire form of a private event for one of its recipients.
     *
     * @param seq the recipient account's event sequence.
     */
    public static AccountEvent accountEvent(
        final Event e, final long recipient, final long seq, final Directory directory)
    {
        final AccountEvent.Builder b = AccountEvent.newBuilder()
            .setSeq(seq)
            .setEngineSeq(e.sequence)
            .setTimeMs(e.timeMs)
            .setCommandSeq(e.commandSequence);
        switch (e.type)
        {
            case ACCEPTED -> b.setAccepted(Accepted.newBuilder().setOrderId(e.orderId));
            case REJECTED -> b.setRejected(Rejected.newBuilder()
                .setOrderId(e.orderId)
                .setReason(reason(e.rejectReason))
                .setCommand(commandKind(e.command)));
            case CANCELLED -> b.setCancelled(Cancelled.newBuilder()
                .setOrderId(e.orderId).setReason(CANCELS[e.cancelReason.ordinal()]).setRemaining(e.remaining));
            case FILL -> b.setFill(Fill.newBuilder()
                .setOrderId(e.orderId).setCounterOrderId(e.counterOrderId).setLeaseId(e.leaseId)
                .setGpus(e.gpus).setPrice(e.price).setPreemptsLeaseId(e.preemptsLeaseId));
            case LEASE_STARTED -> b.setLeaseStarted(LeaseStarted.newBuilder()
                .setLeaseId(e.leaseId).setMarket(directory.marketSymbol(e.marketId)).setMachineId(e.machineId)
                .setGpus(e.gpus).setPrice(e.price).setRenter(recipient == e.renterId));
            case PREEMPT_NOTICE -> b.setPreemptNotice(PreemptNotice.newBuilder()
                .setLeaseId(e.leaseId).setReason(NOTICES[e.noticeReason.ordinal()]).setEffectiveMs(e.effectiveMs));
            case LEASE_ENDED -> b.setLeaseEnded(LeaseEnded.newBuilder()
                .setLeaseId(e.leaseId).setReason(ENDS[e.endReason.ordinal()]).setCost(e.cost).setFee(e.fee));
            case SETTLED -> b.setSettled(Settled.newBuilder()
                .setLeaseId(e.leaseId).setCharge(e.charge).setFee(e.fee).setPeriod(e.period).setMs(e.ms));
            case BALANCE -> b.setBalance(Balance.newBuilder().setBalance(e.balance).setAvailable(e.available));
            case MACHINE_ONLINE -> b.setMachineOnline(MachineOnline.newBuilder().setMachineId(e.machineId));
            case MACHINE_OFFLINE -> b.setMachineOffline(MachineOffline.newBuilder().setMachineId(e.machineId));
            default -> throw new IllegalArgumentException("not a private event: " + e.type);
        }
        return b.build();
    }

    /** The anonymous Trade market data subscribers get for a TRADE event. */
    public static Trade trade(final Event e, final Directory directory)
    {
        return Trade.newBuilder().setMarket(directory.marketSymbol(e.marketId)).setGpus(e.gpus)
            .setPrice(e.price).setTimeMs(e.timeMs).setEngineSeq(e.sequence).build();
    }
}
