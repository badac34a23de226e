package io.sluice.servlet;

import io.sluice.KeySource;
import io.sluice.key.Exemptions;
import io.sluice.rule.Rule;
import io.sluice.rule.When;

import java.util.List;
import java.util.function.Supplier;

/**
 * Whether each rule limits a {@code @Limited} call (CDI's or Spring's) at all ({@code when}, {@code exempt}) when the
 * call's key comes from elsewhere (a {@code @LimitKey} argument): the caller and the current HTTP request still say who
 * is calling. Stateless.
 */
public final class CallAudience {
    private CallAudience() {
    }

    /**
     * The call's keys, costs and plans as {@code keys} gives them, and whether each rule applies to it and exempts it
     * as the caller's own request says.
     *
     * @param keys            the call's keys
     * @param keysFromRequest whether {@code keys} already reads the caller and the current request
     * @param rules           the rules that apply to the call
     * @param request         the caller's and the current request's keys, asked only when needed
     * @return {@code keys} answering the call's audience
     */
    public static KeySource of(KeySource keys, boolean keysFromRequest, List<Rule> rules, Supplier<KeySource> request) {
        if (keysFromRequest || !anyAudience(rules)) return keys;
        KeySource caller = request.get();
        return new DelegatingKeySource(keys) {
            @Override
            public boolean applies(Rule rule) {
                return caller.applies(rule);
            }

            @Override
            public boolean exempt(Rule rule) {
                return caller.exempt(rule);
            }
        };
    }

    /** A loop, not a stream: asked on every call of a {@code @LimitKey} method. */
    private static boolean anyAudience(List<Rule> rules) {
        for (Rule r : rules) if (r.when() != When.ALWAYS || r.exempt() != Exemptions.NONE) return true;
        return false;
    }
}
