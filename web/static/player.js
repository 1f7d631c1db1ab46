// A transcript line's time plays the recording from there.
(function () {
  const player = document.getElementById("player");
  document.querySelectorAll("button.seek").forEach(button => {
    button.addEventListener("click", () => {
      player.currentTime = Number(button.dataset.ms) / 1000;
      player.play();
    });
  });
})();
