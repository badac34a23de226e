package io.sluice.examples.spring;

import io.sluice.KeySource;
import io.sluice.LimitExceededException;
import io.sluice.Sluice;
import io.sluice.rule.Rule;
import org.springframework.stereotype.Service;

import java.util.List;

/**
 * Exports, limited per user by the rule "exports" that this service applies itself: a rejection is a
 * {@link LimitExceededException}, which Sluice's handler answers as the filter answers (429, headers, problem body).
 */
@Service
public class ExportService {
    private static final String RULE = "exports";

    private final Sluice sluice;

    public ExportService(Sluice sluice) {
        this.sluice = sluice;
    }

    /**
     * Exports the user's data, if the rule admits it.
     *
     * @param user who exports
     * @return the export
     * @throws LimitExceededException when the user has exported too often
     */
    public String export(String user) {
        // Read the rules for each call: a reload replaces them whole.
        Rule rule = sluice.rules().get(RULE).orElseThrow();
        try (var admission = sluice.admit(List.of(rule), KeySource.fixed(user)).toCompletableFuture().join().orThrow()) {
            return "export of " + user;
        }
    }
}
