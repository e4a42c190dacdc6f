package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
)

// overflowScript measures, after the page's own script ran, every shown
// text node (not one inside a closed <details>) inside each element
// matching the selector: a line box of the text that reaches outside its
// container's box (by more than half a pixel) is an overflow. It also
// reports a page wider than the window. The first 20 findings go into a
// data attribute of <html>, which --dump-dom serializes.
const overflowScript = `<script>
window.addEventListener("load",function(){setTimeout(function(){
  var out=[],sel=%s;
  document.querySelectorAll(sel).forEach(function(box,i){
    var br=box.getBoundingClientRect();
    if(br.width===0&&br.height===0){return;}
    var w=document.createTreeWalker(box,NodeFilter.SHOW_TEXT),n;
    while((n=w.nextNode())){
      var text=n.textContent.trim();
      if(!text){continue;}
      var el=n.parentElement;
      if(el.checkVisibility&&!el.checkVisibility({contentVisibilityAuto:true,opacityProperty:true,visibilityProperty:true})){continue;}
      var r=document.createRange();r.selectNodeContents(n);
      var rs=r.getClientRects();
      for(var k=0;k<rs.length;k++){
        var b=rs[k];
        if(b.width===0){continue;}
        var past=Math.max(b.right-br.right,br.left-b.left,b.bottom-br.bottom,br.top-b.top);
        if(past>0.5&&out.length<20){
          out.push((box.className||box.tagName)+" #"+i+": the text \""+text.slice(0,60)+"\" runs "+Math.round(past)+"px out of it");
          break;
        }
      }
    }
  });
  var de=document.documentElement;
  if(de.scrollWidth>de.clientWidth+1){out.push("the page is "+de.scrollWidth+"px wide in a "+de.clientWidth+"px window: something does not wrap");}
  de.setAttribute("data-overflow",JSON.stringify(out));
},0);});
</script>`

// Layout is a page as rendered at one window width.
type Layout struct {
	// DOM is the serialized DOM after the page's scripts ran (with the
	// measuring script added at the end of <body>).
	DOM string
	// Overflows has one line per text that does not fit inside the
	// element around it that matches the selector, and one when the page
	// is wider than the window; empty when everything fits.
	Overflows []string
}

// Layout renders page in a window width CSS pixels wide and measures
// every text inside the elements that match the CSS selector (".card",
// "details.check"): see Layout.Overflows. It renders a copy of the page
// with a measuring script added, so the page itself is untouched.
func (b *Browser) Layout(ctx context.Context, page string, width int, selector string) (Layout, error) {
	dom, results, err := b.measure(ctx, page, width, 1000, "", layoutMeasuring(selector))
	if err != nil {
		return Layout{}, err
	}
	return parseLayout(dom, results[0])
}

func layoutMeasuring(selector string) measuring {
	return measuring{script: overflowScript, attr: "data-overflow", selector: selector}
}

func parseLayout(dom, result []byte) (Layout, error) {
	l := Layout{DOM: string(dom)}
	if err := json.Unmarshal(result, &l.Overflows); err != nil {
		return Layout{}, fmt.Errorf("the measuring script's result: %v", err)
	}
	return l, nil
}

// Measure is Position and Layout in one start of the browser: it renders
// a copy of page with both measuring scripts added in a window width ×
// height CSS pixels, finds the first element matching position and
// measures the texts inside the elements matching layout. A screenshot of
// the window goes to png when it is not "" (the measuring scripts change
// nothing that shows).
func (b *Browser) Measure(ctx context.Context, page string, width, height int, position, layout, png string) (Box, Layout, error) {
	dom, results, err := b.measure(ctx, page, width, height, png, positionMeasuring(position), layoutMeasuring(layout))
	if err != nil {
		return Box{}, Layout{}, err
	}
	box, err := parseBox(results[0])
	if err != nil {
		return Box{}, Layout{}, err
	}
	l, err := parseLayout(dom, results[1])
	return box, l, err
}
