package io.gpux.client.cli;

import io.gpux.client.GpuxClient;
import io.gpux.proto.v1.Configure;
import io.gpux.proto.v1.CreateAccount;
import io.gpux.proto.v1.CreateKey;
import io.gpux.proto.v1.CreateMarket;
import io.gpux.proto.v1.Deposit;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.HaltMarket;
import io.gpux.proto.v1.MarketInfo;
import io.gpux.proto.v1.Markets;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.ResumeMarket;
import io.gpux.proto.v1.RevokeKey;
import io.gpux.proto.v1.Role;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code gpux admin}: accounts, keys, deposits, markets, exchange settings. Needs a key of an account
 * with the ADMIN role (a fresh exchange's bootstrap key: {@code gpux server --admin-key-file FILE}).
 */
@Command(name = "admin", mixinStandardHelpOptions = true,
    description = "Administration (needs an ADMIN key): accounts, keys, deposits, markets.",
    subcommands = {
        AdminCommand.AccountGroup.class, AdminCommand.KeyGroup.class, AdminCommand.DepositCommand.class,
        AdminCommand.MarketGroup.class, AdminCommand.MarketsCommand.class, AdminCommand.ConfigCommand.class})
public final class AdminCommand extends CommandGroup
{
    public static void main(final String[] args)
    {
        GpuxCli.main("admin", args);
    }

    @Command(name = "account", mixinStandardHelpOptions = true, description = "Accounts.",
        subcommands = AccountCreateCommand.class)
    static final class AccountGroup extends CommandGroup
    {
    }

    @Command(name = "create", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Creates an account; prints its id.")
    static final class AccountCreateCommand extends ClientCommand
    {
        @Parameters(index = "0", paramLabel = "NAME", description = "the account's name")
        String account;

        @Option(names = "--roles", required = true, split = ",", paramLabel = "ROLE", converter = Converters.AccountRole.class,
            description = "RENTER, OWNER, MARKET_MAKER, ADMIN; several separated by commas")
        List<Role> roles;

        @Override
        int execute() throws Exception
        {
            try (GpuxClient client = connect(null))
            {
                final Response r = client.call(Envelope.newBuilder().setCreateAccount(
                    CreateAccount.newBuilder().setName(account).addAllRoles(roles)), timeout());
                final List<String> names = new ArrayList<>();
                roles.forEach(role -> names.add(role.name()));
                return printResult(r, new Json().put("account", account).put("roles", String.join(",", names))
                    .put("account_id", r.getAssignedId()));
            }
        }
    }

    @Command(name = "key", mixinStandardHelpOptions = true, description = "API keys.",
        subcommands = {KeyCreateCommand.class, KeyRevokeCommand.class})
    static final class KeyGroup extends CommandGroup
    {
    }

    @Command(name = "create", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Creates an API key for an account; prints its id and secret (shown only now).",
            "With --out FILE, writes <keyId>:<secret> to FILE (mode 0600, for --key-file) instead of printing the secret."})
    static final class KeyCreateCommand extends ClientCommand
    {
        @Parameters(index = "0", paramLabel = "ACCOUNT", description = "the account's name")
        String account;

        @Option(names = "--out", paramLabel = "FILE", description = "write the key here, mode 0600")
        Path out;

        @Override
        int execute() throws Exception
        {
            if (out != null && Files.isDirectory(out))
            {
                throw CliException.usage("--out " + out + " is a directory");
            }
            try (GpuxClient client = connect(null))
            {
                final Response r = client.call(Envelope.newBuilder().setCreateKey(CreateKey.newBuilder().setAccount(account)),
                    timeout());
                final Json fields = new Json().put("account", account);
                if (r.getReason() == Reason.REASON_OK)
                {
                    fields.put("key_id", r.getAssignedId());
                    if (out != null)
                    {
                        writePrivate(out, r.getAssignedId() + ":" + r.getSecret() + "\n");
                        fields.put("file", out.toString());
                    }
                    else
                    {
                        fields.put("secret", r.getSecret());
                    }
                }
                return printResult(r.toBuilder().clearSecret().build(), fields);
            }
        }

        /** Writes through a temporary file created with mode 0600 (never readable by others), then renames it. */
        private static void writePrivate(final Path file, final String text) throws CliException
        {
            final Path dir = file.toAbsolutePath().getParent();
            Path tmp = null;
            try
            {
                try
                {
                    tmp = Files.createTempFile(dir, "." + file.getFileName(), ".tmp",
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
                }
                catch (final UnsupportedOperationException ex)
                {
                    tmp = Files.createTempFile(dir, "." + file.getFileName(), ".tmp");
                }
                Files.writeString(tmp, text, StandardCharsets.UTF_8);
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            }
            catch (final IOException ex)
            {
                try
                {
                    if (tmp != null)
                    {
                        Files.deleteIfExists(tmp);
                    }
                }
                catch (final IOException ignored)
                {
                    // the report below is what matters
                }
                throw new CliException(CliException.REJECTED, "the key was created but cannot be written to " + file + ": " + ex);
            }
        }
    }

    @Command(name = "revoke", mixinStandardHelpOptions = true, description = "Revokes an API key.")
    static final class KeyRevokeCommand extends ClientCommand
    {
        @Parameters(index = "0", paramLabel = "KEY_ID", description = "the key's id")
        long keyId;

        @Override
        int execute() throws Exception
        {
            try (GpuxClient client = connect(null))
            {
                final Response r = client.call(Envelope.newBuilder().setRevokeKey(RevokeKey.newBuilder().setKeyId(keyId)),
                    timeout());
                return printResult(r, new Json().put("key_id", keyId));
            }
        }
    }

    @Command(name = "deposit", mixinStandardHelpOptions = true, description = "Adds money to an account.")
    static final class DepositCommand extends ClientCommand
    {
        @Parameters(index = "0", paramLabel = "ACCOUNT", description = "the account's name")
        String account;

        @Parameters(index = "1", paramLabel = "AMOUNT", converter = Converters.Amount.class,
            description = "the amount, e.g. 1000 or 12.345678")
        long amount;

        @Override
        int execute() throws Exception
        {
            try (GpuxClient client = connect(null))
            {
                final Response r = client.call(Envelope.newBuilder().setDeposit(
                    Deposit.newBuilder().setAccount(account).setAmount(amount)), timeout());
                return printResult(r, new Json().put("account", account).put("amount", Format.money(amount)));
            }
        }
    }

    @Command(name = "market", mixinStandardHelpOptions = true, description = "Markets.",
        subcommands = {MarketCreateCommand.class, MarketHaltCommand.class, MarketResumeCommand.class})
    static final class MarketGroup extends CommandGroup
    {
    }

    @Command(name = "create", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Creates a market; what is not given takes the rulebook's default.")
    static final class MarketCreateCommand extends ClientCommand
    {
        @Parameters(index = "0", paramLabel = "SYMBOL", description = "2 to 32 of A-Z 0-9 - . _, e.g. H100-SXM-80G")
        String symbol;

        @Option(names = "--tick", paramLabel = "PRICE", converter = Converters.Price.class,
            description = "price increment (default 0.0001)")
        Long tick;

        @Option(names = "--grace", paramLabel = "DURATION", converter = Converters.DurationOrZeroMs.class,
            description = "notice before a preempted or reclaimed lease ends (default 30s)")
        Long graceMs;

        @Option(names = "--min-increment", paramLabel = "PRICE", converter = Converters.Price.class,
            description = "how much more than a lease's price a bid must offer to preempt it (default one tick)")
        Long minIncrement;

        @Option(names = "--preempt-increment-bps", paramLabel = "N", description = "how much more than a lease's "
            + "price, in basis points of it, a bid must also offer to preempt it, 0 to 10000 (default 0)")
        Long preemptIncrementBps;

        @Option(names = "--fragment-first", description = "among asks at one price, fill the machine with the "
            + "fewest free GPUs first, keeping whole machines for gang bids (default: oldest ask first)")
        boolean fragmentFirst;

        @Option(names = "--fee-bps", paramLabel = "N", description = "exchange fee in basis points, 0 to 500 (default 250)")
        Long feeBps;

        @Option(names = "--prepay", paramLabel = "DURATION", converter = Converters.DurationMs.class,
            description = "the period a renter's funds are held for ahead of use (default 1h)")
        Long prepayMs;

        @Option(names = "--max-gpus", paramLabel = "N", description = "largest order (default 1024)")
        Long maxGpusPerOrder;

        @Option(names = "--preemption", negatable = true, paramLabel = "", description = "whether higher bids may preempt "
            + "running leases (default: yes; --no-preemption turns it off)")
        Boolean preemption;

        @Override
        int execute() throws Exception
        {
            final CreateMarket.Builder m = CreateMarket.newBuilder().setSymbol(symbol);
            if (tick != null)
            {
                m.setTick(tick);
            }
            if (graceMs != null)
            {
                m.setGraceMs(graceMs);
            }
            if (minIncrement != null)
            {
                m.setMinIncrement(minIncrement);
            }
            if (preemptIncrementBps != null)
            {
                m.setPreemptIncrementBps(preemptIncrementBps);
            }
            if (fragmentFirst)
            {
                m.setFragmentFirst(true);
            }
            if (feeBps != null)
            {
                m.setFeeBps(feeBps);
            }
            if (prepayMs != null)
            {
                m.setPrepayMs(prepayMs);
            }
            if (maxGpusPerOrder != null)
            {
                m.setMaxGpusPerOrder(maxGpusPerOrder);
            }
            if (preemption != null)
            {
                m.setPreemption(preemption);
            }
            try (GpuxClient client = connect(null))
            {
                return printResult(client.call(Envelope.newBuilder().setCreateMarket(m), timeout()),
                    new Json().put("market", symbol));
            }
        }
    }

    @Command(name = "halt", mixinStandardHelpOptions = true,
        description = "Halts a market: no new orders; cancels and lease events go on.")
    static final class MarketHaltCommand extends ClientCommand
    {
        @Parameters(index = "0", paramLabel = "SYMBOL", description = "the market")
        String symbol;

        @Override
        int execute() throws Exception
        {
            try (GpuxClient client = connect(null))
            {
                return printResult(client.call(Envelope.newBuilder().setHaltMarket(HaltMarket.newBuilder().setMarket(symbol)),
                    timeout()), new Json().put("market", symbol));
            }
        }
    }

    @Command(name = "resume", mixinStandardHelpOptions = true, description = "Resumes a halted market.")
    static final class MarketResumeCommand extends ClientCommand
    {
        @Parameters(index = "0", paramLabel = "SYMBOL", description = "the market")
        String symbol;

        @Override
        int execute() throws Exception
        {
            try (GpuxClient client = connect(null))
            {
                return printResult(client.call(Envelope.newBuilder().setResumeMarket(
                    ResumeMarket.newBuilder().setMarket(symbol)), timeout()), new Json().put("market", symbol));
            }
        }
    }

    @Command(name = "markets", mixinStandardHelpOptions = true, description = "Lists every market and its parameters.")
    static final class MarketsCommand extends ClientCommand
    {
        @Override
        int execute() throws Exception
        {
            try (GpuxClient client = connect(null))
            {
                final Markets markets = client.markets(timeout());
                if (json)
                {
                    for (final MarketInfo m : markets.getMarketsList())
                    {
                        out().println(new Json().put("type", "market").put("symbol", m.getSymbol())
                            .put("tick", Format.price(m.getTick())).put("preemption", m.getPreemption())
                            .put("grace_ms", m.getGraceMs()).put("min_increment", Format.price(m.getMinIncrement()))
                            .put("fee_bps", m.getFeeBps()).put("prepay_ms", m.getPrepayMs())
                            .put("max_gpus_per_order", m.getMaxGpusPerOrder()).put("halted", m.getHalted())
                            .put("preempt_increment_bps", m.getPreemptIncrementBps())
                            .put("fragment_first", m.getFragmentFirst()));
                    }
                    return 0;
                }
                final Table table = new Table("SYMBOL", "TICK", "PREEMPTION", "GRACE_MS", "MIN_INCREMENT", "FEE_BPS",
                    "PREPAY_MS", "MAX_GPUS", "STATE");
                for (final MarketInfo m : markets.getMarketsList())
                {
                    table.row(m.getSymbol(), Format.price(m.getTick()), m.getPreemption() ? "on" : "off", m.getGraceMs(),
                        Format.price(m.getMinIncrement()), m.getFeeBps(), m.getPrepayMs(), m.getMaxGpusPerOrder(),
                        m.getHalted() ? "HALTED" : "open");
                }
                table.print(out());
                return 0;
            }
        }
    }

    @Command(name = "config", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Changes exchange settings: the heartbeat interval advised to owner agents, the machine heartbeat timeout, " +
            "the window machines have to heartbeat again after an exchange restart.")
    static final class ConfigCommand extends ClientCommand
    {
        @Option(names = "--heartbeat-interval", paramLabel = "DURATION", converter = Converters.DurationMs.class,
            description = "how often owner agents should heartbeat (default 5s)")
        Long heartbeatIntervalMs;

        @Option(names = "--heartbeat-timeout", paramLabel = "DURATION", converter = Converters.DurationOrZeroMs.class,
            description = "a machine without a heartbeat for this long goes offline; 0 disables (default 15s)")
        Long heartbeatTimeoutMs;

        @Option(names = "--restart-window", paramLabel = "DURATION", converter = Converters.DurationOrZeroMs.class,
            description = "after an exchange restart, a machine online before it has at least this long to heartbeat " +
                "again (at least one heartbeat timeout; default 60s)")
        Long restartWindowMs;

        @Override
        int execute() throws Exception
        {
            if (heartbeatIntervalMs == null && heartbeatTimeoutMs == null && restartWindowMs == null)
            {
                throw CliException.usage("give --heartbeat-interval, --heartbeat-timeout and/or --restart-window");
            }
            final Configure.Builder c = Configure.newBuilder();
            final Json fields = new Json();
            if (heartbeatIntervalMs != null)
            {
                c.setHeartbeatIntervalMs(heartbeatIntervalMs);
                fields.put("heartbeat_interval_ms", heartbeatIntervalMs);
            }
            if (heartbeatTimeoutMs != null)
            {
                c.setHeartbeatTimeoutMs(heartbeatTimeoutMs);
                fields.put("heartbeat_timeout_ms", heartbeatTimeoutMs);
            }
            if (restartWindowMs != null)
            {
                c.setRestartWindowMs(restartWindowMs);
                fields.put("restart_window_ms", restartWindowMs);
            }
            try (GpuxClient client = connect(null))
            {
                return printResult(client.call(Envelope.newBuilder().setConfigure(c), timeout()), fields);
            }
        }
    }
}
