// The dashboard's charts, drawn by Chart.js from the figures the page
// carries (the same figures its tables show).
(function () {
  const data = JSON.parse(document.getElementById("dashboard-data").textContent);
  const days = data.days.map(d => d.date);
  new Chart(document.getElementById("conversations-chart"), {
    type: "bar",
    data: { labels: days, datasets: [{ label: "Conversations", data: data.days.map(d => d.conversations), backgroundColor: "#0b5cad" }] },
    options: { animation: false, responsive: true, maintainAspectRatio: false, plugins: { legend: { display: false } } },
  });
  const colours = ["#0b5cad", "#a4161a", "#2d6a4f", "#6b4c9a", "#9c6500", "#1b1f24", "#c2185b", "#00695c"];
  new Chart(document.getElementById("hits-chart"), {
    type: "line",
    data: {
      labels: days,
      datasets: data.classifiers.map((c, i) => ({
        label: c.name,
        data: data.days.map(d => d.rates[i]),
        borderColor: colours[i % colours.length],
        backgroundColor: colours[i % colours.length],
        spanGaps: true,
      })),
    },
    options: { animation: false, responsive: true, maintainAspectRatio: false, scales: { y: { min: 0, max: 100, title: { display: true, text: "% of conversations" } } } },
  });
})();

// One chart a scored model (sentiment, a talk measure): its mean by team.
(function () {
  const data = JSON.parse(document.getElementById("dashboard-data").textContent).byTeam;
  const holder = document.getElementById("team-charts");
  data.series.forEach((s, i) => {
    const box = document.createElement("div");
    box.className = "chart";
    const canvas = document.createElement("canvas");
    canvas.id = "team-chart-" + i;
    canvas.setAttribute("role", "img");
    canvas.setAttribute("aria-label", s.name + " by team: the table below has the figures");
    box.appendChild(canvas);
    holder.appendChild(box);
    const values = s.means.map(m => (m === null ? null : s.share ? 100 * m : m));
    new Chart(canvas, {
      type: "bar",
      data: { labels: data.teams, datasets: [{ label: s.name + (s.share ? " (mean %)" : " (mean)"), data: values, backgroundColor: i % 2 ? "#a4161a" : "#2d6a4f" }] },
      options: { animation: false, responsive: true, maintainAspectRatio: false, indexAxis: "y",
        scales: { x: s.share ? { min: 0, max: 100 } : { min: -1, max: 1 } } },
    });
  });
})();
