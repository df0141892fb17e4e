package io.gpux.engine;

import io.gpux.engine.replay.ScenarioReplayer;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Delta debugging (ddmin) over scenario lines: finds a short subsequence of a failing scenario that
 * still fails the same way, so that a failure found by a long random stream can be reported as a few
 * lines. Times never go down in a subsequence, so every candidate is a valid scenario.
 */
final class ScenarioMinimizer
{
    private ScenarioMinimizer()
    {
    }

    /** The failure of a scenario under the {@link InvariantChecker}, or null if it passes. */
    static String failureOf(final List<String> lines)
    {
        final ScenarioReplayer replayer = new ScenarioReplayer(new StringBuilder());
        final InvariantChecker checker = new InvariantChecker(replayer.engine());
        replayer.engine().sink(checker.tee(null));
        try
        {
            for (final String line : lines)
            {
                final int d = line.indexOf(" DEPOSIT ");
                if (d >= 0)
                {
                    final String account = value(line, "account");
                    final String amount = value(line, "amount");
                    if (account != null && amount != null)
                    {
                        checker.expectDeposit(replayer.symbols().accounts.id(account),
                            new java.math.BigDecimal(amount).movePointRight(6).longValueExact());
                    }
                }
                replayer.line(line);
                checker.check();
            }
        }
        catch (final Exception | AssertionError ex)
        {
            return String.valueOf(ex.getMessage());
        }
        return null;
    }

    /** A failure message with its numbers blanked out: what "the same failure" means. */
    static String signature(final String message)
    {
        final String first = message == null ? "" : message.split("\n", 2)[0];
        return first.replaceAll("[0-9]+", "#");
    }

    /** Minimizes a failing scenario under the InvariantChecker, for at most the given time. */
    static List<String> minimize(final List<String> lines, final long budgetMs)
    {
        final String sig = signature(failureOf(lines));
        return ddmin(lines, candidate -> sig.equals(signature(failureOf(candidate))), budgetMs);
    }

    /** Classic ddmin: removes chunks of decreasing size while the predicate still holds. */
    static List<String> ddmin(final List<String> input, final Predicate<List<String>> fails, final long budgetMs)
    {
        final long deadline = System.currentTimeMillis() + budgetMs;
        List<String> current = new ArrayList<>(input);
        int n = 2;
        while (current.size() >= 2 && System.currentTimeMillis() < deadline)
        {
            final int chunk = (int)Math.ceil(current.size() / (double)n);
            boolean reduced = false;
            for (int start = 0; start < current.size() && System.currentTimeMillis() < deadline; start += chunk)
            {
                final List<String> complement = new ArrayList<>(current.subList(0, start));
                complement.addAll(current.subList(Math.min(current.size(), start + chunk), current.size()));
                if (!complement.isEmpty() && fails.test(complement))
                {
                    current = complement;
                    n = Math.max(n - 1, 2);
                    reduced = true;
                    break;
                }
            }
            if (!reduced)
            {
                if (chunk == 1)
                {
                    break;
                }
                n = Math.min(current.size(), n * 2);
            }
        }
        return current;
    }

    private static String value(final String line, final String key)
    {
        for (final String token : line.split("\\s+"))
        {
            if (token.startsWith(key + "="))
            {
                return token.substring(key.length() + 1);
            }
        }
        return null;
    }
}
