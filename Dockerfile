# Node.js 26, the Active LTS line (from 2026-10-28; maintenance from 2027-10-20, end of life 2029-04-30), on Debian 13:
# package.json's engines names the same line, and CI runs the suite on it (docs/operations.md, "Runtime").
# Build stage: compile TypeScript with the dev dependencies, then keep only what runs.
FROM node:26-trixie-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY src ./src
COPY console ./console
RUN npm run build && npm prune --omit=dev

# Run stage: the compiled daemon and its production dependencies, as an unprivileged user.
FROM node:26-trixie-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The browser console's static files, served from beside dist/ (src/app/console-static.ts).
COPY --from=build /app/console ./console
# The generated connections key lives here (CONNECTIONS_KEY_FILE in docker-compose.yml); a fresh named volume takes
# this directory's owner, so the daemon can write it.
RUN mkdir -p /var/lib/crm-sync && chown node:node /var/lib/crm-sync && chmod 700 /var/lib/crm-sync
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health/ready').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
CMD ["node", "--expose-gc", "dist/main.js"]
