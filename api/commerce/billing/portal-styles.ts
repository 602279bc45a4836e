// The plan page's styles: laid out to fit a 375 px phone without sideways scrolling.
export const portalStyles = `<style>
  .summary { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .3rem 1rem; margin: 0; }
  .summary dt { font-weight: 600; } .summary dd { margin: 0; overflow-wrap: anywhere; }
  ul.rows { list-style: none; padding: 0; margin: 0; }
  ul.rows li { display: flex; flex-wrap: wrap; gap: .25rem .75rem; padding: .5rem 0; border-bottom: 1px solid #e8e4f6; }
  ul.rows li.focus { background: #fff7d6; } ul.rows .what { flex: 1 1 12rem; } code { overflow-wrap: anywhere; }
  .badge { background: #e8e4f6; border-radius: .3rem; padding: 0 .4rem; font-size: .9rem; }
  .panel { border: 1px solid #d9d4ea; border-radius: .5rem; padding: 1rem; margin: 1rem 0; }
  .notice { border: 1px solid #4b2db3; border-radius: .4rem; padding: .5rem 1rem; }
  .actions form { display: inline; } .actions { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
  button, a.button { display: inline-block; padding: .5rem 1rem; font: inherit; border: 0; border-radius: .3rem; cursor: pointer; text-decoration: none; background: #4b2db3; color: #fff; }
  button.secondary, a.button.secondary { background: #e8e4f6; color: #1d1b26; }
  select { font: inherit; padding: .4rem; max-width: 100%; } label { display: block; margin: .5rem 0; }
</style>`;
