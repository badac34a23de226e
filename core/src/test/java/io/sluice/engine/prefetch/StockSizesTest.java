package io.sluice.engine.prefetch;

import io.sluice.rule.Rule;
import io.sluice.rule.RuleParser;
import io.sluice.spi.RateRequest;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

class StockSizesTest {
    private final AtomicInteger servers = new AtomicInteger(1);
    private final StockSizes sizes = new StockSizes(servers::get);

    private static Rule rule(String... kv) {
        Map<String, String> p = new HashMap<>();
        p.put("sluice.rules.r.key", "global");
        for (int i = 0; i < kv.length; i += 2) p.put("sluice.rules.r." + kv[i], kv[i + 1]);
        return RuleParser.parse(p).get("r").orElseThrow();
    }

    private static RateRequest request(Rule rule, String key) {
        return rule.ratePolicy().request(key, rule.rate().orElseThrow(), 1);
    }

    private void arrive(Rule rule, RateRequest r, long at, int times) {
        for (int i = 0; i < times; i++) sizes.arrived(rule, r, at);
    }

    @Test
    void aQuietKeyTakesNothingAheadABusyOneTwiceItsDemandPerHold() {
        Rule rule = rule("rate", "1000000/10s");
        RateRequest r = request(rule, "k");
        arrive(rule, r, 1_000, 3);
        assertThat(sizes.ahead(rule, r, 1_000)).as("3 requests in a hold: quiet").isZero();
        arrive(rule, r, 1_050, 1);
        assertThat(sizes.ahead(rule, r, 1_050)).as("4 in the hold of 100 ms").isEqualTo(8);
        arrive(rule, r, 1_120, 1);
        assertThat(sizes.ahead(rule, r, 1_120)).as("the last whole hold counts while the current one is quieter").isEqualTo(8);
        assertThat(sizes.ahead(rule, r, 1_250)).as("a hold later only the last one, with 1").isZero();
        assertThat(sizes.ahead(rule, request(rule, "other"), 1_050)).isZero();
    }

    @Test
    void aStockIsAtMostAHundredthOfTheLimitAmongTheServers() {
        Rule rule = rule("rate", "10000/1s");
        RateRequest r = request(rule, "k");
        arrive(rule, r, 5_000, 4_000);
        assertThat(sizes.ahead(rule, r, 5_000)).isEqualTo(100);
        servers.set(3);
        assertThat(sizes.ahead(rule, r, 5_000)).isEqualTo(33);
        servers.set(26);
        assertThat(sizes.ahead(rule, r, 5_000)).as("100 / 26: 3, less than the smallest stock").isZero();
        servers.set(25);
        assertThat(sizes.ahead(rule, r, 5_000)).isEqualTo(4);
        assertThat(sizes.refill(rule, r, 1, 5_000)).as("4 less the 1 still held: not worth a refill").isZero();
        servers.set(1);
        assertThat(sizes.refill(rule, r, 25, 5_000)).as("the share less what is held").isEqualTo(75);
    }

    @Test
    void aFixedPrefetchIsItsOwnSizeWhateverTheDemand() {
        Rule rule = rule("rate", "10000/1s", "prefetch", "40");
        assertThat(sizes.ahead(rule, request(rule, "k"), 0)).isEqualTo(40);
        Rule off = rule("rate", "10000/1s", "prefetch", "off");
        assertThat(off.ratePolicy().prefetches()).isFalse();
    }

    @Test
    void aKeyWhoseCallCameShortGoesWithoutAStockForAHold() {
        Rule rule = rule("rate", "1000000/10s");
        RateRequest r = request(rule, "k");
        arrive(rule, r, 1_000, 40);
        assertThat(sizes.ahead(rule, r, 1_000)).isEqualTo(80);
        sizes.cameShort(rule, r, 1_010);
        assertThat(sizes.ahead(rule, r, 1_010)).as("at its limit: decided in the backend").isZero();
        arrive(rule, r, 1_109, 40);
        assertThat(sizes.ahead(rule, r, 1_109)).as("busier still, within the hold of 100 ms").isZero();
        assertThat(sizes.ahead(rule, request(rule, "other"), 1_050)).as("another key").isZero();
        arrive(rule, request(rule, "other"), 1_050, 4);
        assertThat(sizes.ahead(rule, request(rule, "other"), 1_050)).as("another key, busy").isEqualTo(8);
        assertThat(sizes.ahead(rule, r, 1_110)).as("the hold has passed").isEqualTo(80);
        Rule fixed = rule("rate", "1000000/10s", "prefetch", "40");
        RateRequest f = request(fixed, "f");
        sizes.cameShort(fixed, f, 1_000);
        assertThat(sizes.ahead(fixed, f, 1_000)).as("a fixed size keeps asking").isEqualTo(40);
    }

    @Test
    void aTickerBeforeZeroCountsAsAnyOther() {
        Rule rule = rule("rate", "1000000/10s");
        RateRequest r = request(rule, "k");
        long at = -7_000_000_123L;
        arrive(rule, r, at, 4);
        assertThat(sizes.ahead(rule, r, at)).isEqualTo(8);
        arrive(rule, r, at + 100, 1);
        assertThat(sizes.ahead(rule, r, at + 100)).as("the stretch before counts").isEqualTo(8);
        sizes.cameShort(rule, r, at + 100);
        assertThat(sizes.ahead(rule, r, at + 199)).isZero();
        arrive(rule, r, at + 200, 4);
        assertThat(sizes.ahead(rule, r, at + 200)).isEqualTo(8);
    }

    @Test
    void demandSaturatesRatherThanOverflowing() {
        KeyDemand demand = new KeyDemand();
        for (int i = 0; i < KeyDemand.MOST + 100; i++) demand.arrived("k", 7, 10);
        assertThat(demand.perHold("k", 7, 10)).isEqualTo(KeyDemand.MOST);
        demand.arrived("k", 12, 10);
        assertThat(demand.perHold("k", 12, 10)).as("the last stretch's count carries over").isEqualTo(KeyDemand.MOST);
        assertThat(demand.perHold("k", 25, 10)).as("two stretches later: only the one before").isEqualTo(1);
        assertThat(demand.perHold("k", 40, 10)).isZero();
    }
}
