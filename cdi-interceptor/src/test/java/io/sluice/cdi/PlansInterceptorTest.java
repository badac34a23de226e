package io.sluice.cdi;

import io.sluice.LimitExceededException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.enterprise.inject.spi.DeploymentException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Per-plan limits in the interceptor, on a real CDI container (Weld, inside embedded Jetty for the HTTP cases) and
 * real Redis: the plan from a {@link LimitPlan} parameter, or from the current request's header or attribute (also
 * when a {@link LimitKey} gives the key), exact limits per plan, {@code unlimited} exempt, unknown plans held to the
 * rule's own limits, usage kept across a plan change; and the deployment checks of {@link LimitPlan}.
 */
class PlansInterceptorTest {
    private static WeldContainer container;
    private static CdiTesting.WebApp web;
    private static HttpClient http;

    @BeforeAll
    static void start() throws Exception {
        container = CdiTesting.boot(CdiTesting.rulesFile(
                "sluice.rules.reports.rate=3/1h",
                "sluice.rules.reports.algorithm=token-bucket",
                "sluice.rules.reports.key=header:X-User",
                "sluice.rules.reports.plan=header:X-Plan",
                "sluice.rules.reports.plans.pro.rate=10/1h",
                "sluice.rules.reports.plans.vip.rate=unlimited",
                // Fixed windows are aligned to multiples of the period: a week is never crossed mid-test.
                "sluice.rules.exports.rate=3/7d",
                "sluice.rules.exports.algorithm=fixed-window",
                "sluice.rules.exports.key=header:X-User",
                "sluice.rules.exports.plan=attribute:example.plan",
                "sluice.rules.exports.plans.pro.rate=10/7d",
                "sluice.rules.jobs.concurrency=1",
                "sluice.rules.jobs.key=global",
                "sluice.rules.jobs.plan=header:X-Plan",
                "sluice.rules.jobs.plans.pro.concurrency=2"),
                Reports.class);
        web = CdiTesting.jetty(container, context -> context.addServlet(new ServletHolder(new ReportsServlet()), "/*"));
        http = HttpClient.newHttpClient();
    }

    @AfterAll
    static void stop() throws Exception {
        if (web != null) web.stop();
        if (container != null) container.shutdown();
    }

    private static String user() {
        return "u-" + UUID.randomUUID();
    }

    /** Calls until the first rejection (at most {@code most}); how many were admitted, and the rejection's limit. */
    private static long[] admittedThenLimit(Runnable call, int most) {
        for (int i = 0; i < most; i++) {
            try {
                call.run();
            } catch (LimitExceededException e) {
                return new long[]{i, e.limit()};
            }
        }
        return new long[]{most, -1};
    }

    @Test
    void aLimitPlanParameterChoosesTheLimit() {
        Reports reports = container.select(Reports.class).get();
        String free = user();
        String pro = user();
        String vip = user();
        String unknown = user();
        assertThat(admittedThenLimit(() -> reports.build(free, null), 20)).containsExactly(3, 3);
        assertThat(admittedThenLimit(() -> reports.build(pro, Tier.PRO), 20)).containsExactly(10, 10);
        assertThat(admittedThenLimit(() -> reports.build(vip, Tier.VIP), 40)).containsExactly(40, -1);
        assertThat(admittedThenLimit(() -> reports.build(unknown, Tier.GOLD), 20)).containsExactly(3, 3);
    }

    @Test
    void aKeyThatUpgradesKeepsItsUsage() {
        Reports reports = container.select(Reports.class).get();
        String u = user();
        reports.build(u, null);
        reports.build(u, null);
        assertThat(admittedThenLimit(() -> reports.build(u, Tier.PRO), 20)).containsExactly(8, 10);
        LimitExceededException downgraded = catchThrowableOfType(() -> reports.build(u, null), LimitExceededException.class);
        assertThat(downgraded.limit()).isEqualTo(3);
        assertThat(downgraded.remaining()).isEqualTo(0);
    }

    @Test
    void thePlanComesFromTheCurrentRequestsHeader() throws Exception {
        String free = user();
        String pro = user();
        assertThat(callsUntil429("/header", free, null)).isEqualTo(3);
        assertThat(callsUntil429("/header", pro, "pro")).isEqualTo(10);
        assertThat(callsUntil429("/header", user(), "vip")).isEqualTo(30);
        assertThat(callsUntil429("/header", user(), "pro\u00e9" + "x".repeat(5000))).isEqualTo(3);
    }

    @Test
    void underALimitKeyThePlanStillComesFromTheCurrentRequest() throws Exception {
        assertThat(callsUntil429("/keyed", user(), "pro")).isEqualTo(10);
        assertThat(callsUntil429("/keyed", user(), "free")).isEqualTo(3);
    }

    @Test
    void thePlanComesFromARequestAttributeTheApplicationSet() throws Exception {
        assertThat(callsUntil429("/attribute", user(), "pro")).isEqualTo(10);
        assertThat(callsUntil429("/attribute", user(), null)).isEqualTo(3);
    }

    @Test
    void aConcurrencyPlanHoldsItsLimit() throws Exception {
        Reports reports = container.select(Reports.class).get();
        assertThat(heldAtOnce(reports, null, 5)).isEqualTo(1);
        assertThat(heldAtOnce(reports, "pro", 5)).isEqualTo(2);
    }

    /**
     * {@code callers} calls on threads of their own (a nested call on one thread is one call chain, counted once),
     * each holding its permit until every call has been decided: how many were admitted at once.
     */
    private static int heldAtOnce(Reports reports, String plan, int callers) throws Exception {
        CountDownLatch decided = new CountDownLatch(callers);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger admitted = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        try {
            List<Future<?>> calls = new ArrayList<>();
            for (int i = 0; i < callers; i++) {
                calls.add(pool.submit(() -> {
                    try {
                        reports.hold(plan, () -> {
                            admitted.incrementAndGet();
                            decided.countDown();
                            try {
                                release.await(30, TimeUnit.SECONDS);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        });
                    } catch (LimitExceededException e) {
                        decided.countDown();
                    }
                }));
            }
            assertThat(decided.await(30, TimeUnit.SECONDS)).as("every call decided").isTrue();
            release.countDown();
            for (Future<?> call : calls) call.get(30, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        return admitted.get();
    }

    @Test
    void twoLimitPlansOrALimitPlanOnRulesWithoutPlansFailDeployment() {
        var rules = CdiTesting.rulesFile("sluice.rules.plain.rate=1/1h", "sluice.rules.plain.key=global");
        assertThatThrownBy(() -> CdiTesting.boot(rules, BadPlans.class).shutdown())
                .isInstanceOf(DeploymentException.class)
                .hasMessageContaining("@LimitPlan on 2 parameters of " + BadPlans.class.getName() + ".twice: expected at most one")
                .hasMessageContaining("@LimitPlan on " + BadPlans.class.getName() + ".pointless: expected a method whose "
                        + "@Limited rules have plans; [plain] have no sluice.rules.<name>.plans.<plan>.*");
    }

    /** Sends requests until one is rejected (at most 30); how many were admitted. */
    private static int callsUntil429(String path, String user, String plan) throws IOException, InterruptedException {
        for (int i = 0; i < 30; i++) {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(web.base() + path)).header("X-User", user);
            if (plan != null) b.header("X-Plan", plan);
            int status = http.send(b.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
            if (status == 429) return i;
            assertThat(status).isEqualTo(200);
        }
        return 30;
    }

    /** A plan as application code knows it; {@code toString()} is the plan's name. */
    public enum Tier {
        PRO, VIP, GOLD;

        @Override
        public String toString() {
            return name().toLowerCase();
        }
    }

    @ApplicationScoped
    public static class Reports {
        @Limited("reports")
        public String build(@LimitKey String user, @LimitPlan Tier tier) {
            return "report";
        }

        @Limited("reports")
        public String fromRequest() {
            return "report";
        }

        @Limited("reports")
        public String keyed(@LimitKey String user) {
            return "report";
        }

        @Limited("exports")
        public String export() {
            return "export";
        }

        /** Runs {@code whileHeld} holding a permit of {@code jobs}. */
        @Limited("jobs")
        public void hold(@LimitPlan String plan, Runnable whileHeld) {
            whileHeld.run();
        }
    }

    @ApplicationScoped
    public static class BadPlans {
        @Limited("plain")
        public void twice(@LimitPlan String a, @LimitPlan String b) {
        }

        @Limited("plain")
        public void pointless(@LimitPlan String plan) {
        }
    }

    public static class ReportsServlet extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            Reports reports = CDI.current().select(Reports.class).get();
            try {
                String body = switch (req.getPathInfo() == null ? req.getServletPath() : req.getPathInfo()) {
                    case "/header" -> reports.fromRequest();
                    case "/keyed" -> reports.keyed(req.getHeader("X-User"));
                    case "/attribute" -> {
                        // The application knows the caller's plan (here from a header it trusts) and says so.
                        if (req.getHeader("X-Plan") != null) req.setAttribute("example.plan", req.getHeader("X-Plan"));
                        yield reports.export();
                    }
                    default -> throw new IllegalArgumentException(req.getRequestURI());
                };
                resp.getWriter().write(body);
            } catch (LimitExceededException e) {
                resp.setStatus(429);
            }
        }
    }
}
