package io.sluice.examples.spring;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * Notes need a signed-in user (HTTP Basic, demo users); Sluice's Actuator endpoint the role OPS; everything else is open. Sluice's filter runs just after
 * this chain, so the rule "notes" (key {@code user}) counts per user.
 */
@Configuration(proxyBeanMethods = false)
public class SecurityConfiguration {
    @Bean
    SecurityFilterChain security(HttpSecurity http) throws Exception {
        return http
                .authorizeHttpRequests(requests -> requests
                        .requestMatchers("/api/notes").authenticated()
                        // Sluice's Actuator endpoint shows usage and resets keys: operators only.
                        .requestMatchers("/actuator/sluice/**").hasRole("OPS")
                        .anyRequest().permitAll())
                .httpBasic(basic -> { })
                // The endpoint is called by scripts with HTTP Basic, not from a browser form.
                .csrf(csrf -> csrf.ignoringRequestMatchers("/actuator/sluice/**"))
                .build();
    }

    @Bean
    UserDetailsService users() {
        return new InMemoryUserDetailsManager(
                User.withUsername("ada").password("{noop}ada-password").roles("USER").build(),
                User.withUsername("grace").password("{noop}grace-password").roles("USER").build(),
                User.withUsername("ops").password("{noop}ops-password").roles("OPS").build());
    }
}
