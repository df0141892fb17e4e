package io.gpux.gateway;

import io.gpux.engine.event.RejectReason;
import io.gpux.gateway.auth.Authenticator;
import io.gpux.gateway.directory.Directory;
import io.gpux.gateway.directory.Registrations;
import io.gpux.gateway.egress.Egress;
import io.gpux.gateway.session.Session;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Response;

import java.util.Map;

/**
 * What answering a request that registered something changes in the gateway's own tables, on the
 * egress thread: a new account, market or machine the engine rejected is forgotten, else its id is
 * answered; a new key accepted is added, and its secret answered once.
 */
final class CompletedRequests implements Egress.CompletionHook
{
    private final Directory directory;
    /** Keys asked for and not yet answered: key id to account id. */
    private final Map<Long, Long> pendingKeys;
    private final Authenticator authenticator;

    CompletedRequests(final Directory directory, final Map<Long, Long> pendingKeys, final Authenticator authenticator)
    {
        this.directory = directory;
        this.pendingKeys = pendingKeys;
        this.authenticator = authenticator;
    }

    @Override
    public void onCompleted(final Session s, final int slot, final RejectReason reject, final Response.Builder response)
    {
        final long assigned = s.assignedId(slot);
        switch (s.kind(slot))
        {
            case Session.KIND_NEW_ACCOUNT, Session.KIND_NEW_MARKET, Session.KIND_NEW_MACHINE ->
                Registrations.answered(directory, s.kind(slot), assigned, response);
            case Session.KIND_NEW_KEY ->
            {
                final Long account = pendingKeys.remove(assigned);
                if (response.getReason() == Reason.REASON_OK && account != null)
                {
                    directory.keyAdded(assigned, account);
                    response.setAssignedId(assigned).setSecret(authenticator.secretHex(assigned));
                }
            }
            default ->
            {
            }
        }
    }
}
