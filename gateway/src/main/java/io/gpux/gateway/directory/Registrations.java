package io.gpux.gateway.directory;

import io.gpux.gateway.session.Session;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Response;

/**
 * What answering a registration changes in the {@link Directory}: the id given to a new account,
 * market or machine is answered if its command went through, and forgotten if the engine rejected it
 * or it was refused unjournaled (UNAVAILABLE), since nothing was registered then.
 */
public final class Registrations
{
    private Registrations()
    {
    }

    /**
     * Settles a registration of {@code kind} ({@link Session#KIND_NEW_ACCOUNT}, {@link Session#KIND_NEW_MARKET}
     * or {@link Session#KIND_NEW_MACHINE}) whose id was {@code assignedId}, by its {@code response}.
     */
    public static void answered(final Directory directory, final byte kind, final long assignedId, final Response.Builder response)
    {
        if (response.getReason() == Reason.REASON_OK)
        {
            response.setAssignedId(assignedId);
            return;
        }
        switch (kind)
        {
            case Session.KIND_NEW_ACCOUNT -> directory.forgetAccount(assignedId);
            case Session.KIND_NEW_MARKET -> directory.forgetMarket(assignedId);
            case Session.KIND_NEW_MACHINE -> directory.forgetMachine(assignedId);
            default -> throw new IllegalArgumentException("not a registration: kind " + kind);
        }
    }
}
