package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
)

// positionScript records, after the page's own script ran, the box of the
// first element matching the selector, relative to the top of the page
// (the first screen is 0..window height), in a data attribute of <html>.
const positionScript = `<script>
window.addEventListener("load",function(){setTimeout(function(){
  var el=document.querySelector(%s),de=document.documentElement,out={found:false};
  if(el){var r=el.getBoundingClientRect();out={found:true,top:r.top+window.scrollY,bottom:r.bottom+window.scrollY,left:r.left,right:r.right,visible:el.checkVisibility?el.checkVisibility():true,text:(el.textContent||"").trim().slice(0,120)};}
  out.height=de.scrollHeight;
  de.setAttribute("data-position",JSON.stringify(out));
},0);});
</script>`

// Box is where an element lies on a rendered page, in CSS pixels from the
// top left of the page (not of the window), and the page's height.
type Box struct {
	Found   bool    `json:"found"`
	Top     float64 `json:"top"`
	Bottom  float64 `json:"bottom"`
	Left    float64 `json:"left"`
	Right   float64 `json:"right"`
	Visible bool    `json:"visible"`
	// Text is the start of the element's text.
	Text string `json:"text"`
	// PageHeight is the height of the whole page.
	PageHeight float64 `json:"height"`
}

// Position renders page in a window width × height CSS pixels and finds
// the first element matching the CSS selector: an element whose Top is
// below height is not on the first screen. Like Layout, it renders a
// copy of the page with a measuring script added.
func (b *Browser) Position(ctx context.Context, page string, width, height int, selector string) (Box, error) {
	_, results, err := b.measure(ctx, page, width, height, "", positionMeasuring(selector))
	if err != nil {
		return Box{}, err
	}
	return parseBox(results[0])
}

func positionMeasuring(selector string) measuring {
	return measuring{script: positionScript, attr: "data-position", selector: selector}
}

func parseBox(result []byte) (Box, error) {
	var box Box
	if err := json.Unmarshal(result, &box); err != nil {
		return Box{}, fmt.Errorf("the measuring script's result: %v", err)
	}
	return box, nil
}
