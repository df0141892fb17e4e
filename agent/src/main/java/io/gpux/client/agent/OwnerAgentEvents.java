package io.gpux.client.agent;

import io.gpux.client.BookView;
import io.gpux.client.ClientListener;
import io.gpux.client.GpuxClient;
import io.gpux.proto.v1.AccountEvent;
import io.gpux.proto.v1.BookSnapshot;
import io.gpux.proto.v1.BookUpdate;
import io.gpux.proto.v1.LoginAccepted;
import io.gpux.proto.v1.MachineOffline;
import io.gpux.proto.v1.MachineOnline;
import io.gpux.proto.v1.Portfolio;

/**
 * The owner agent's view of the client's callbacks, on the client's event loop: the account's events
 * and portfolios keep the agent's {@link MachineLedger}, a new session makes the agent register again,
 * and the market's book (when undercutting) is kept in a {@link BookView} whose best asks the agent's
 * thread copies when it prices its ask.
 */
final class OwnerAgentEvents implements ClientListener
{
    private final OwnerAgent agent;
    private final GpuxClient client;
    private final OwnerAgentListener listener;
    private final MachineLedger ledger;
    private BookView book;

    OwnerAgentEvents(final OwnerAgent agent, final GpuxClient client, final OwnerAgentListener listener, final MachineLedger ledger)
    {
        this.agent = agent;
        this.client = client;
        this.listener = listener;
        this.ledger = ledger;
    }

    /** Copies up to {@code prices.length} best ask levels; -1 without a valid book (event loop). */
    /** The book's best bid; 0 without one or without a valid book (event loop). */
    long bestBid()
    {
        return book == null || !book.isValid() || book.bidLevels() == 0 ? 0 : book.bestBid();
    }

    int copyAsks(final long[] prices, final long[] gpus)
    {
        if (book == null || !book.isValid())
        {
            return -1;
        }
        final int levels = Math.min(prices.length, book.askLevels());
        for (int i = 0; i < levels; i++)
        {
            prices[i] = book.askPrice(i);
            gpus[i] = book.askGpus(i);
        }
        return levels;
    }

    @Override
    public void onLoginAccepted(final LoginAccepted accepted)
    {
        // a new session: register again (same name, same id) before anything else, then read the portfolio
        agent.onNewSession();
    }

    @Override
    public void onPortfolio(final long requestId, final Portfolio portfolio)
    {
        ledger.onPortfolio(portfolio);
    }

    @Override
    public void onEvent(final AccountEvent event)
    {
        if (ledger.onEvent(event))
        {
            switch (event.getKindCase())
            {
                case LEASE_STARTED -> listener.onLeaseStarted(event.getLeaseStarted().getLeaseId(),
                    event.getLeaseStarted().getGpus(), event.getLeaseStarted().getPrice());
                case LEASE_ENDED -> listener.onLeaseEnded(event.getLeaseEnded().getLeaseId(),
                    event.getLeaseEnded().getReason());
                default ->
                {
                }
            }
        }
        if (event.getKindCase() == AccountEvent.KindCase.LEASE_ENDED && agent.isStopping())
        {
            // a graceful stop may be waiting for this one: count again now
            agent.wake();
        }
    }

    @Override
    public void onBookSnapshot(final BookSnapshot snapshot)
    {
        final String market = agent.market();
        if (snapshot.getMarket().equals(market))
        {
            if (book == null)
            {
                book = new BookView(market);
            }
            book.onSnapshot(snapshot);
        }
    }

    @Override
    public void onBookUpdate(final BookUpdate update)
    {
        if (book != null && book.onUpdate(update) == BookView.Result.GAP)
        {
            try
            {
                client.unsubscribe(agent.market());
                client.subscribe(agent.market());
            }
            catch (final IllegalStateException ex)
            {
                // disconnected: the client renews the subscription when it logs in again
            }
        }
    }

    @Override
    public void onMachineOnline(final AccountEvent event, final MachineOnline online)
    {
        if (online.getMachineId() == agent.machineId())
        {
            listener.onMachineOnline(online.getMachineId());
        }
    }

    @Override
    public void onMachineOffline(final AccountEvent event, final MachineOffline offline)
    {
        if (offline.getMachineId() == agent.machineId())
        {
            listener.onMachineOffline(offline.getMachineId());
        }
    }
}
