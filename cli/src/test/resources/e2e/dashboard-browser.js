// Drives the dashboard in headless Chromium for DashboardBrowserTest. Arguments come in the environment:
// PLAYWRIGHT (the playwright-core directory), CHROMIUM, URL, MARKET, SHOTS (a directory for screenshots).
// Prints READY once the page shows the market live, then waits for a line "TRADED <price>" on stdin and
// prints SEEN once the trade is on the page (within a second) or FAILED <reason>. Then signs in with a
// wrong key (prints REFUSED and the page's reason), and with the key in RENTER_KEY: prints ACCOUNT once
// the renter's own lease shows.
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

    await page.fill("#key", "1:" + "0".repeat(64));
    await page.click("#signin button");
    await page.waitForFunction(() => document.getElementById("signin-error").textContent !== "", null, { timeout: 5000 });
    console.log("REFUSED " + await page.textContent("#signin-error"));
    await page.fill("#key", process.env.RENTER_KEY);
    await page.click("#signin button");
    await page.waitForFunction(p => {
      const leases = document.querySelector("#account table.leases");
      return leases !== null && leases.textContent.includes("renter") && leases.textContent.includes(p);
    }, price, { timeout: 5000 });
    await page.screenshot({ path: process.env.SHOTS + "/dashboard-signed-in.png", fullPage: true });
    console.log("ACCOUNT");
    lines.close();
  } finally {
    await browser.close();
  }
})().catch(fail);
