// Drives the dashboard in headless Chromium for DashboardBrowserTest. Arguments come in the environment:
// PLAYWRIGHT (the playwright-core directory), CHROMIUM, URL, MARKET, SHOTS (a directory for screenshots).
// Prints READY once the page shows the market live, then waits for a line "TRADED <price>" on stdin and
// prints SEEN once the trade is on the page (within a second) or FAILED <reason>.
"use strict";
const { chromium } = require(process.env.PLAYWRIGHT);
const readline = require("readline");

const fail = e => { console.log("FAILED " + String(e && e.message || e).split("\n")[0]); process.exit(1); };

(async () => {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM, headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const market = `section[data-market="${process.env.MARKET}"]`;
    await page.goto(process.env.URL);
    await page.waitForSelector("#status.live", { timeout: 15000 });
    await page.waitForSelector(market, { timeout: 15000 });
    await page.screenshot({ path: process.env.SHOTS + "/dashboard-before-trade.png", fullPage: true });
    console.log("READY");
    const lines = readline.createInterface({ input: process.stdin });
    const line = await new Promise(resolve => lines.once("line", resolve));
    const price = line.split(" ")[1];
    await page.waitForFunction(([sel, p]) => {
      const trades = document.querySelector(sel + " table.trades");
      return trades !== null && trades.textContent.includes(p);
    }, [market, price], { timeout: 1000, polling: "raf" });
    console.log("SEEN");
    await page.screenshot({ path: process.env.SHOTS + "/dashboard-after-trade.png", fullPage: true });
    console.log("SHOT");
    lines.close();
  } finally {
    await browser.close();
  }
})().catch(fail);
