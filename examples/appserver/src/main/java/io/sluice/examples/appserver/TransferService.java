package io.sluice.examples.appserver;

import io.sluice.cdi.LimitKey;
import io.sluice.cdi.Limited;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;

/**
 * A {@code @Limited} method that is also {@code @Transactional}. Sluice's interceptor runs first, so a limit is
 * decided before any transaction opens: {@link #outsideTransactions} (which refuses to run in a transaction)
 * counts against the rule even when called in one, and is rejected by the limit once it is used up.
 */
@ApplicationScoped
public class TransferService {
    @Limited("transfers")
    @Transactional(Transactional.TxType.NEVER)
    public String outsideTransactions(@LimitKey String user) {
        return "transferred";
    }

    @Limited("transfers")
    @Transactional
    public String inTransaction(@LimitKey String user) {
        return "transferred";
    }
}
